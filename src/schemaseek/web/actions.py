"""The glossary and eval pages of the workbench (:mod:`schemaseek.web.app` routes them).

Saving a glossary goes through the service's ``UpdateGlossary`` (validated, persisted,
applied to every engine); afterwards the registered questions are asked again and the run is
recorded as ``"glossary update"``, so the eval page shows whether the change helped.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from schemaseek.errors import GlossaryError
from schemaseek.glossary_lint import lint_glossary
from schemaseek.web.entry_form import EntryForm, candidate_glossary, entry_form, form_from_fields
from schemaseek.web.history import RecordedRun
from schemaseek.web.hooks import ActionFailed, Viewer
from schemaseek.web.plot import PLOTTED, metrics_svg, ranks_svg
from schemaseek.web.trials import GlossaryTrial, glossary_trial, run_questions

if TYPE_CHECKING:
    from schemaseek.web.app import Workbench

__all__ = [
    "dry_run",
    "edit_page",
    "eval_page",
    "glossary_page",
    "metrics_chart",
    "ranks_chart",
    "run_eval",
    "save",
]

MATRIX_RUNS = 8
SVG = "image/svg+xml"


async def glossary_page(wb: Workbench, request: Request, viewer: Viewer) -> Response:
    glossary = wb.hooks.glossary()
    needle = request.query_params.get("q", "").strip().lower()
    entries = [
        (i, e)
        for i, e in enumerate(glossary.entries)
        if not needle or needle in json.dumps(e.model_dump(), ensure_ascii=False).lower()
    ]
    lint = await run_in_threadpool(lint_glossary, glossary, wb.hooks.schemas())
    saved = request.query_params.get("saved", "")
    return wb.render(
        request, viewer, "glossary.html",
        entries=entries, total=len(glossary.entries), needle=needle, lint=lint, saved=saved,
    )  # fmt: skip


def _edit(
    wb: Workbench,
    request: Request,
    viewer: Viewer,
    form: EntryForm,
    *,
    status: int = 200,
    error: str = "",
    trial: GlossaryTrial | None = None,
    findings: list[Any] | None = None,
) -> Response:
    return wb.render(
        request, viewer, "glossary_edit.html", status,
        form=form, error=error, trial=trial, findings=findings or [],
        questions=len(wb.hooks.questions), metrics=PLOTTED,
    )  # fmt: skip


async def edit_page(wb: Workbench, request: Request, viewer: Viewer) -> Response:
    try:
        form = entry_form(wb.hooks.glossary(), request.query_params.get("entry", "new"))
    except KeyError:
        return wb.error_page(request, 404, "no such glossary entry")
    return _edit(wb, request, viewer, form)


async def _posted(request: Request) -> EntryForm:
    data = await request.form()
    return form_from_fields({k: v for k, v in data.items() if isinstance(v, str)})


async def dry_run(wb: Workbench, request: Request, viewer: Viewer) -> Response:
    """The edit tried on the registered questions (nothing saved), and linted."""
    form = await _posted(request)
    hooks = wb.hooks
    try:
        candidate = candidate_glossary(hooks.glossary(), form)
    except GlossaryError as exc:
        return _edit(wb, request, viewer, form, status=400, error=str(exc))
    report = await run_in_threadpool(lint_glossary, candidate, hooks.schemas())
    findings = [f for f in report.findings if f.level != "info"]
    if not hooks.questions:
        error = "no labelled questions are registered with the service: nothing to try"
        return _edit(wb, request, viewer, form, error=error, findings=findings)
    trial = await run_in_threadpool(
        glossary_trial, hooks.members(), hooks.questions, hooks.settings, candidate
    )
    return _edit(wb, request, viewer, form, trial=trial, findings=findings)


async def save(wb: Workbench, request: Request, viewer: Viewer) -> Response:
    """Through ``UpdateGlossary``; then the questions are asked again and recorded."""
    form = await _posted(request)
    hooks = wb.hooks
    try:
        candidate = candidate_glossary(hooks.glossary(), form)
        answer = await hooks.save_glossary(candidate.model_dump_json())
    except (GlossaryError, ActionFailed) as exc:
        return _edit(wb, request, viewer, form, status=400, error=str(exc))
    if hooks.questions:
        await _record(wb, "glossary update")
    entries = answer.get("entries", len(candidate.entries))
    return RedirectResponse(f"/ui/glossary?saved={entries}", 303)


async def _record(wb: Workbench, label: str) -> RecordedRun:
    hooks = wb.hooks
    run = await run_in_threadpool(run_questions, hooks.members(), hooks.questions, hooks.settings)
    recorded = RecordedRun(run, label, len(hooks.glossary().entries), "hybrid")
    wb.history.add(recorded)
    return recorded


async def run_eval(wb: Workbench, request: Request, viewer: Viewer) -> Response:
    if wb.hooks.questions:
        await _record(wb, f"run by {viewer.name}")
    return RedirectResponse("/ui/eval", 303)


async def eval_page(wb: Workbench, request: Request, viewer: Viewer) -> Response:
    runs = wb.history.runs()
    last = runs[-1] if runs else None
    recent = runs[-MATRIX_RUNS:]
    matrix = []
    if last is not None:
        for outcome in last.run.outcomes:
            ranks = []
            for run in recent:
                found = next((o for o in run.run.outcomes if o.id == outcome.id), None)
                ranks.append(found.rank if found is not None else None)
            matrix.append((outcome, ranks))
    misses = [o for o in last.run.outcomes if o.missed] if last else []
    first = len(runs) - len(recent) + 1
    return wb.render(
        request, viewer, "eval.html",
        runs=list(enumerate(runs, 1))[::-1], last=last, matrix=matrix, misses=misses,
        recent=list(range(first, len(runs) + 1)), metrics=PLOTTED,
        questions=wb.hooks.questions,
    )  # fmt: skip


async def metrics_chart(wb: Workbench, request: Request, viewer: Viewer) -> Response:
    runs = wb.history.runs()
    if not runs:
        return wb.error_page(request, 404, "no eval run yet")
    return Response(metrics_svg(runs), media_type=SVG, headers={"cache-control": "no-store"})


async def ranks_chart(wb: Workbench, request: Request, viewer: Viewer) -> Response:
    runs = wb.history.runs()
    if not runs:
        return wb.error_page(request, 404, "no eval run yet")
    return Response(ranks_svg(runs[-1]), media_type=SVG, headers={"cache-control": "no-store"})
