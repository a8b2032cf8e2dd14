"""The workbench in a real headless Chromium against a real ``schemaseek serve --demo``:
search with signal bars, read-only for a ``search`` token, a glossary dry run, a save through
``UpdateGlossary``, eval runs with their chart, engines and events. Each page's screenshot is
saved under the test's tmp dir and copied to ``docs/workbench/``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, Playwright, sync_playwright

from tests.helpers.browser import browser_context, keep_screenshot, require_chromium
from tests.service.conftest import token_server
from tests.service.harness import ADMIN, ADMIN_TOKEN, SEARCH_TOKEN, ServerProcess

QUESTION = "royalty payments for Sony"


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    require_chromium()
    with sync_playwright() as driver:
        yield driver


def log_in(page: Page, url: str, token: str) -> None:
    page.goto(url + "/")
    assert "/ui/login" in page.url  # tokens are configured: the page asks for one
    page.fill("#token", token)
    page.click("#login")
    page.wait_for_selector("header .who")


def shot(page: Page, tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert keep_screenshot(path).stat().st_size > 10_000


def test_search_page_and_a_read_only_search_token(
    demo_server: ServerProcess, playwright: Playwright, tmp_path: Path
) -> None:
    assert "glossary targets not found" not in demo_server.log()  # warm start: no false alarm
    with browser_context(playwright) as context:
        page = context.new_page()
        log_in(page, demo_server.url, SEARCH_TOKEN)
        page.fill("#q", QUESTION)
        page.click("#go")
        page.wait_for_selector("#results li.result")
        first = page.locator("#results li.result").first
        assert first.get_attribute("data-id") == "Query.abacusContract"
        signals = first.locator("tr.signal")
        names = [signals.nth(i).get_attribute("data-signal") for i in range(signals.count())]
        assert {"glossary", "vector", "keyword"} <= set(names)
        widths = first.locator("svg.bar rect.fill").evaluate_all(
            "rects => rects.map(r => Number(r.getAttribute('width')))"
        )
        assert len(widths) == len(names) and max(widths) > 0
        assert "royalty payments" in first.locator(".glossary").inner_text()
        assert first.locator("button.copy").inner_text() == "Copy GraphQL"
        assert "abacusContract(id: $id)" in first.locator("pre").inner_text()
        assert page.locator("#joins pre").count() >= 1  # SQL tables found together: ON clauses
        assert "q=royalty" in page.url  # the page's URL is the deep link
        assert page.locator(".who .badge").inner_text().endswith("read-only")
        shot(page, tmp_path, "search")

        page.goto(demo_server.url + "/ui/glossary")
        assert page.locator("#entries article.entry").count() == 15
        assert page.locator("a.edit").count() == 0 and page.locator("#new-entry").count() == 0
        refused = page.goto(demo_server.url + "/ui/glossary/edit?entry=0")
        assert refused is not None and refused.status == 403
        assert "read-only" in page.locator("#error").inner_text()
        page.goto(demo_server.url + "/ui/eval")
        csrf = page.locator("input[name=csrf]").first.get_attribute("value") or ""
        answer = page.request.post(
            demo_server.url + "/ui/eval/run", form={"csrf": csrf}, max_redirects=0
        )
        assert answer.status == 403  # an admin-only action, refused for a search token
        save = page.request.post(
            demo_server.url + "/ui/glossary/save",
            form={"csrf": csrf, "entry": "0", "terms": "x", "priority": "0"},
            max_redirects=0,
        )
        assert save.status == 403


def test_glossary_dry_run_save_eval_and_engines(
    warm_snapshots: Path, playwright: Playwright, tmp_path: Path
) -> None:
    server = token_server(tmp_path, warm_snapshots)
    try:
        server.wait_status("ready", timeout=120)
        with browser_context(playwright) as context:
            page = context.new_page()
            log_in(page, server.url, ADMIN_TOKEN)
            page.goto(server.url + "/ui/glossary")
            shot(page, tmp_path, "glossary")
            page.locator("#entry-0 a.edit").click()
            page.fill("#priority", "0")  # the royalties entry stops boosting anything
            page.click("#dry-run")
            page.wait_for_selector("#trial")
            moved = page.locator("#changes tr.change")
            assert moved.count() >= 1
            questions = [moved.nth(i).get_attribute("data-question") for i in range(moved.count())]
            # both royalty questions match the entry; which of them moves depends on the ranking
            assert {"royalties-sony", "artist-royalty-rate"} & set(questions)
            verdicts = [(moved.nth(i).get_attribute("class") or "") for i in range(moved.count())]
            counts = [
                int(page.locator(f"#{n}").inner_text().split()[0])
                for n in ("improved", "regressed", "moved")
            ]
            assert sum(counts) == moved.count()
            assert counts[0] == sum(v.endswith("improved") for v in verdicts)
            assert page.locator("#deltas tr").count() == 6  # header + the plotted metrics
            shot(page, tmp_path, "glossary-dry-run")

            page.click("#save")
            page.wait_for_selector("#saved")
            stored = server.rpc(ADMIN + "GetGlossary", {}).json()
            assert json.loads(stored["glossaryJson"])["entries"][0]["priority"] == 0

            page.goto(server.url + "/ui/eval")
            page.click("#run-eval")
            page.wait_for_selector("#metrics-chart")
            assert page.locator("#runs tr").count() == 3  # header + glossary update + run now
            loaded = page.locator("#metrics-chart").evaluate("img => img.naturalWidth")
            assert loaded > 0
            assert page.locator("#per-question tr[data-question]").count() == 14
            assert page.locator("#misses").count() == 1
            shot(page, tmp_path, "eval")

            page.goto(server.url + "/ui/engines")
            assert page.locator("#engines tr[data-source]").count() == 2
            assert "glossary_updated" in page.locator("#event-list").inner_text()
            shot(page, tmp_path, "engines")
    finally:
        server.stop()
