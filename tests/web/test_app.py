"""The workbench app without the service: tokens and roles, CSRF, body limits, pages."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from schemaseek.config import SearchSettings
from schemaseek.federation import Served
from schemaseek.glossary import Glossary, parse_glossary
from schemaseek.sources.demo import demo_glossary, demo_labelled_questions
from schemaseek.web import AccessDenied, ActionFailed, Viewer, Workbench, WorkbenchHooks
from schemaseek.web.app import COOKIE

VIEWERS = {
    "admin-token": Viewer("ops", "admin", True),
    "search-token": Viewer("app", "search", False),
}


class Host:
    """What the service would hand the workbench; records the glossaries it is asked to save."""

    def __init__(self, members: list[Served]) -> None:
        self.members = members
        self.glossary: Glossary = demo_glossary()
        self.saved: list[str] = []

    def authenticate(self, header: str | None, client: str) -> Viewer:
        token = (header or "").removeprefix("Bearer ").strip()
        if token not in VIEWERS:
            raise AccessDenied(401, "invalid bearer token")
        return VIEWERS[token]

    async def save(self, glossary_json: str) -> dict[str, Any]:
        if '"priority":9.5' in glossary_json:
            raise ActionFailed("refused by the service (test)")
        self.saved.append(glossary_json)
        self.glossary = parse_glossary(json.loads(glossary_json))
        return {"entries": len(self.glossary.entries), "applied": True}

    async def engines(self) -> dict[str, Any]:
        return {
            "status": "ready",
            "engines": [{"source": m.name, "state": "ready"} for m in self.members],
        }

    async def snapshots(self) -> dict[str, Any]:
        return {}

    def hooks(self, data_dir: Path) -> WorkbenchHooks:
        return WorkbenchHooks(
            members=lambda: self.members,
            settings=SearchSettings(),
            glossary=lambda: self.glossary,
            schemas=lambda: [m.index.sources[0] for m in self.members if m.index],
            save_glossary=self.save,
            authenticate=self.authenticate,
            engines=self.engines,
            snapshots=self.snapshots,
            events=lambda: [
                {"seq": 1, "type": "state_changed", "source": "music_api", "message": "new → ready"}
            ],
            questions=demo_labelled_questions(),
            data_dir=data_dir,
            tokens=True,
        )


@pytest.fixture()
def host(members: list[Served]) -> Host:
    return Host(members)


@pytest.fixture()
def client(host: Host, tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(Workbench(host.hooks(tmp_path)), follow_redirects=False) as test_client:
        yield test_client


def login(client: TestClient, token: str) -> str:
    answer = client.post("/ui/login?next=/ui/eval", data={"token": token})
    assert answer.status_code == 303 and answer.headers["location"] == "/ui/eval"
    cookie = answer.headers["set-cookie"]
    assert f"{COOKIE}={token}" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
    page = client.get("/ui/eval").text
    return page.split('name="csrf" value="', 1)[1].split('"', 1)[0]


def test_pages_need_a_token(client: TestClient) -> None:
    answer = client.get("/?q=royalty")
    assert (
        answer.status_code == 303 and answer.headers["location"] == "/ui/login?next=/%3Fq%3Droyalty"
    )
    assert client.post("/ui/login", data={"token": "nope"}).status_code == 401
    assert client.post("/ui/eval/run", data={"csrf": "x"}).status_code == 401
    with_header = client.get("/ui/engines", headers={"authorization": "Bearer search-token"})
    assert with_header.status_code == 200 and 'data-source="music_db"' in with_header.text
    assert "new → ready" in with_header.text
    csp = with_header.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp


def test_a_search_token_reads_but_may_not_edit(client: TestClient, host: Host) -> None:
    csrf = login(client, "search-token")
    page = client.get("/", params={"q": "royalty payments for Sony", "mode": "keyword"})
    assert page.status_code == 200 and 'data-id="Query.abacusContract"' in page.text
    assert client.get("/ui/glossary").status_code == 200
    assert client.get("/ui/glossary/edit?entry=0").status_code == 403
    for path in ("/ui/glossary/dry-run", "/ui/glossary/save", "/ui/eval/run"):
        answer = client.post(path, data={"csrf": csrf, "entry": "0", "terms": "x"})
        assert answer.status_code == 403, path
    assert host.saved == []


def test_admin_edits_with_a_valid_form_only(client: TestClient, host: Host) -> None:
    csrf = login(client, "admin-token")
    form = {"entry": "0", "terms": "royalties", "targets": "Query.abacusContract", "priority": "1"}
    assert client.post("/ui/glossary/save", data=form).status_code == 403  # no CSRF token
    assert client.post("/ui/glossary/save", data=form | {"csrf": "0" * 32}).status_code == 403
    dry = client.post("/ui/glossary/dry-run", data=form | {"csrf": csrf})
    assert dry.status_code == 200 and 'id="trial"' in dry.text and host.saved == []
    bad = client.post("/ui/glossary/save", data=form | {"csrf": csrf, "priority": "x"})
    assert bad.status_code == 400 and "priority" in bad.text and host.saved == []
    refused = client.post("/ui/glossary/save", data=form | {"csrf": csrf, "priority": "9.5"})
    assert refused.status_code == 400 and "refused by the service" in refused.text
    saved = client.post("/ui/glossary/save", data=form | {"csrf": csrf})
    assert saved.status_code == 303 and saved.headers["location"] == "/ui/glossary?saved=15"
    assert host.glossary.entries[0].terms == ("royalties",) and len(host.saved) == 1
    assert client.post("/ui/eval/run", data={"csrf": csrf}).status_code == 303
    page = client.get("/ui/eval").text
    assert "glossary update" in page and "run by ops" in page
    assert client.get("/ui/eval/metrics.svg").headers["content-type"] == "image/svg+xml"


def test_bodies_are_bounded(client: TestClient) -> None:
    login(client, "admin-token")
    big = client.post(
        "/ui/glossary/save", content=b"x", headers={"content-length": str((5 << 20) + 1)}
    )
    assert big.status_code == 413
    assert client.get("/ui/eval/ranks.svg").status_code == 404  # no run yet


def test_static_files_and_logout(client: TestClient) -> None:
    csrf = login(client, "search-token")
    assert "button.copy" in client.get("/ui/static/workbench.js").text
    out = client.post("/ui/logout", data={"csrf": csrf})
    assert out.status_code == 303 and f'{COOKIE}=""' in out.headers["set-cookie"]


def test_errors_are_pages_for_browsers_and_json_for_the_rest(client: TestClient) -> None:
    auth = {"authorization": "Bearer search-token"}
    missing = client.get("/ui/nope", headers=auth)
    assert missing.status_code == 404 and missing.json() == {"code": "404", "message": "not found"}
    wrong = client.put("/", headers=auth, content=b"{}")
    assert wrong.status_code == 405 and set(wrong.json()) == {"code", "message"}
    page = client.get("/ui/nope", headers=auth | {"accept": "text/html"})
    assert page.status_code == 404 and 'id="error"' in page.text
