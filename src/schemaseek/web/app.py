"""The workbench ASGI app: server-rendered pages under ``/`` and ``/ui/``.

``/`` searches (deep links: ``/?q=...&sources=a,b&kinds=...&mode=...&limit=...``);
``/ui/glossary`` browses, edits, dry-runs and saves the glossary; ``/ui/eval`` shows the eval
runs over time; ``/ui/engines`` the engines, generations and recent events; ``/ui/login``
takes a token and keeps it in an HTTP-only, same-site cookie.

Every request is authenticated by the host's token check (a cookie or an ``Authorization``
header; without configured tokens everyone is an anonymous admin, on loopback only). Tokens
whose role may not change things (``search``) see everything read-only; editing, dry runs and
eval runs answer 403 to them. Every form carries a CSRF token (an HMAC of the viewer's name
with a per-process secret), and pages are sent with a strict Content-Security-Policy: the only
script is ``/ui/static/workbench.js``.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote

import jinja2
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

from schemaseek.documents import DocKind
from schemaseek.errors import SchemaSeekError
from schemaseek.web import actions
from schemaseek.web.history import EvalHistory
from schemaseek.web.hooks import AccessDenied, Viewer, WorkbenchHooks
from schemaseek.web.views import SearchParams, search_view

__all__ = ["COOKIE", "Workbench"]

COOKIE = "schemaseek_token"
HEADERS = {
    "content-security-policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "cache-control": "no-store",
}
Handler = Callable[[Request, Viewer], Awaitable[Response]]


class Workbench:
    """The app; ``hooks`` connect it to the service (see :mod:`schemaseek.web.hooks`)."""

    def __init__(self, hooks: WorkbenchHooks) -> None:
        self.hooks = hooks
        where = hooks.data_dir / "workbench" / "eval_runs.jsonl" if hooks.data_dir else None
        self.history = EvalHistory(where)
        self.env = jinja2.Environment(
            loader=jinja2.PackageLoader("schemaseek.web", "templates"),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
        )
        self.env.filters["pct"] = lambda v: f"{100.0 * float(v):.0f}"
        self.env.filters["signed"] = lambda v: f"{float(v):+.3f}"
        self.env.filters["when"] = lambda v: time.strftime(
            "%Y-%m-%d %H:%M:%S", time.localtime(float(v or 0))
        )
        page, edit = self._page, self._edit
        self.app = Starlette(
            routes=[
                Route("/", page(self.search)),
                Route("/ui/login", self.login, methods=["GET", "POST"]),
                Route("/ui/logout", page(self.logout), methods=["POST"]),
                Route("/ui/glossary", page(self.call(actions.glossary_page))),
                Route("/ui/glossary/edit", edit(actions.edit_page)),
                Route("/ui/glossary/dry-run", edit(actions.dry_run), methods=["POST"]),
                Route("/ui/glossary/save", edit(actions.save), methods=["POST"]),
                Route("/ui/eval", page(self.call(actions.eval_page))),
                Route("/ui/eval/run", edit(actions.run_eval), methods=["POST"]),
                Route("/ui/eval/metrics.svg", page(self.call(actions.metrics_chart))),
                Route("/ui/eval/ranks.svg", page(self.call(actions.ranks_chart))),
                Route("/ui/engines", page(self.engines)),
                Route("/ui/engines/events.json", page(self.events)),
                Mount("/ui/static", StaticFiles(packages=[("schemaseek.web", "static")])),
            ],
            exception_handlers={HTTPException: self._http_error},
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and (status := _body_refused(scope, self.hooks.max_body)):
            message = "the request body is too large"
            await self.error_page(Request(scope), status, message)(scope, receive, send)
            return
        await self.app(scope, receive, send)

    # -- plumbing ---------------------------------------------------------------------------

    def viewer(self, request: Request) -> Viewer:
        header = request.headers.get("authorization")
        if not header and (token := request.cookies.get(COOKIE)):
            header = f"Bearer {token}"
        return self.hooks.authenticate(header, request.client.host if request.client else "?")

    def csrf(self, viewer: Viewer) -> str:
        return hmac.new(self.hooks.secret, viewer.name.encode(), hashlib.sha256).hexdigest()[:32]

    def render(
        self, request: Request, viewer: Viewer | None, template: str, status: int = 200, **ctx: Any
    ) -> HTMLResponse:
        html = self.env.get_template(template).render(
            viewer=viewer,
            csrf=self.csrf(viewer) if viewer else "",
            tokens=self.hooks.tokens,
            path=request.url.path if request else "/",
            **ctx,
        )
        return HTMLResponse(html, status, headers=HEADERS)

    def error_page(self, request: Request | None, status: int, message: str) -> Response:
        """An HTML page for a browser; the host's JSON error shape for anything else."""
        accept = request.headers.get("accept", "") if request is not None else ""
        if "text/html" not in accept:
            body = self.hooks.error_body(status, message)
            return Response(body, status, media_type="application/json", headers=HEADERS)
        html = self.env.get_template("error.html").render(
            viewer=None, csrf="", tokens=self.hooks.tokens, path="", status=status, message=message
        )
        return HTMLResponse(html, status, headers=HEADERS)

    async def _http_error(self, request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        detail = exc.detail if isinstance(exc, HTTPException) else "internal error"
        return self.error_page(request, status, str(detail).lower())

    def call(self, fn: Callable[[Workbench, Request, Viewer], Awaitable[Response]]) -> Handler:
        async def handler(request: Request, viewer: Viewer) -> Response:
            return await fn(self, request, viewer)

        return handler

    def _page(
        self, handler: Handler, edit: bool = False
    ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                viewer = self.viewer(request)
            except AccessDenied as exc:
                if exc.status == 401 and request.method == "GET":
                    query = request.url.query
                    target = quote(request.url.path + (f"?{query}" if query else ""))
                    return RedirectResponse(f"/ui/login?next={target}", 303)
                return self.error_page(request, exc.status, exc.message)
            if edit and not viewer.can_edit:
                return self.error_page(
                    request, 403, f"token {viewer.name!r} (role {viewer.role}) is read-only here"
                )
            if request.method == "POST":
                form = await request.form()
                if not hmac.compare_digest(str(form.get("csrf", "")), self.csrf(viewer)):
                    return self.error_page(request, 403, "the form is stale: reload the page")
            return await handler(request, viewer)

        return endpoint

    def _edit(
        self, fn: Callable[[Workbench, Request, Viewer], Awaitable[Response]]
    ) -> Callable[[Request], Awaitable[Response]]:
        return self._page(self.call(fn), edit=True)

    def sources(self) -> list[str]:
        names = [s.name for m in self.hooks.members() if (i := m.index) for s in i.sources]
        return list(dict.fromkeys(names))

    # -- pages ------------------------------------------------------------------------------

    async def search(self, request: Request, viewer: Viewer) -> Response:
        values: dict[str, list[str]] = {}
        for key, value in request.query_params.multi_items():
            values.setdefault(key, []).append(value)
        params = SearchParams.parse(values)
        hooks = self.hooks
        try:
            view = await run_in_threadpool(search_view, hooks.members(), hooks.settings, params)
        except SchemaSeekError as exc:
            view = search_view([], hooks.settings, SearchParams())
            view.params, view.error = params, str(exc)
        kinds = [k.value for k in DocKind if k is not DocKind.SQL_COLUMN]
        return self.render(
            request, viewer, "search.html", view=view, sources=self.sources(), kinds=kinds
        )

    async def engines(self, request: Request, viewer: Viewer) -> Response:
        engines, snapshots = await self.hooks.engines(), await self.hooks.snapshots()
        events = list(reversed(self.hooks.events()))[:50]
        return self.render(
            request, viewer, "engines.html", engines=engines, snapshots=snapshots, events=events
        )

    async def events(self, request: Request, viewer: Viewer) -> Response:
        from starlette.responses import JSONResponse

        return JSONResponse(list(reversed(self.hooks.events()))[:50], headers=HEADERS)

    async def login(self, request: Request) -> Response:
        target = request.query_params.get("next", "/")
        target = target if target.startswith("/") and not target.startswith("//") else "/"
        if not self.hooks.tokens:
            return RedirectResponse(target, 303)
        if request.method == "GET":
            return self.render(request, None, "login.html", next=target, message="")
        form = await request.form()
        token = str(form.get("token", "")).strip()
        client = request.client.host if request.client else "?"
        try:
            self.hooks.authenticate(f"Bearer {token}", client)
        except AccessDenied as exc:
            return self.render(
                request, None, "login.html", exc.status, next=target, message=exc.message
            )
        response = RedirectResponse(target, 303)
        response.set_cookie(
            COOKIE, token, max_age=8 * 3600, httponly=True, samesite="strict",
            secure=request.url.scheme == "https",
        )  # fmt: skip
        return response

    async def logout(self, request: Request, viewer: Viewer) -> Response:
        response = RedirectResponse("/ui/login", 303)
        response.delete_cookie(COOKIE, httponly=True, samesite="strict")
        return response


def _body_refused(scope: Scope, limit: int) -> int:
    """413 when the declared content-length passes ``limit`` bytes, else 0 (the service reads
    and bounds every body before it reaches the workbench, declared or not)."""
    for key, value in scope.get("headers", ()):
        if key.lower() == b"content-length":
            return 413 if not value.isdigit() or int(value) > limit else 0
    return 0
