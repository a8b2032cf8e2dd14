"""A local HTTP server for tests that fake a remote API (an embeddings server ...)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeAPI:
    """A threaded server on a free loopback port that answers every POST with
    :meth:`respond` and counts the requests in progress (``in_flight``, ``max_in_flight``).
    ``wait``: ``server_close()`` waits for the requests in progress. Start it with
    ``thread.start()``; stop it with :meth:`stop`."""

    def __init__(self, *, wait: bool = False) -> None:
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                api.handle(self)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = not wait
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def handle(self, request: BaseHTTPRequestHandler) -> None:
        with self.lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            self.respond(request)
        finally:
            with self.lock:
                self.in_flight -= 1

    def respond(self, request: BaseHTTPRequestHandler) -> None:
        raise NotImplementedError

    @staticmethod
    def body(request: BaseHTTPRequestHandler) -> Any:
        """The request's JSON body."""
        return json.loads(request.rfile.read(int(request.headers["Content-Length"])))

    @staticmethod
    def answer(request: BaseHTTPRequestHandler, status: int, payload: bytes) -> None:
        request.send_response(status)
        request.send_header("Content-Type", "application/json")
        request.send_header("Content-Length", str(len(payload)))
        request.end_headers()
        request.wfile.write(payload)

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
