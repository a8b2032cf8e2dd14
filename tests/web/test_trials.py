"""Eval runs and glossary dry runs over the served members."""

from __future__ import annotations

from schemaseek.config import SearchSettings
from schemaseek.evaluation.runner import score_index
from schemaseek.federation import Served
from schemaseek.glossary import Glossary
from schemaseek.index import SchemaIndex
from schemaseek.sources.demo import demo_glossary, demo_labelled_questions, demo_sources
from schemaseek.web.trials import glossary_trial, run_questions

SETTINGS = SearchSettings()


def test_a_run_scores_like_the_evaluation_runner() -> None:
    questions = demo_labelled_questions()
    index = SchemaIndex(demo_sources(), glossary=demo_glossary(), provider=None)
    index.build()
    run = run_questions([Served("demo", index)], questions, SETTINGS, mode="keyword")
    reference = score_index(index, questions, mode="keyword", scope="pooled")
    assert run.metrics == reference.metrics
    assert [o.rank for o in run.outcomes] == [o.rank for o in reference.questions]
    assert len(run.outcomes) == len(questions) and not run.degraded


def test_the_served_glossary_tried_again_changes_nothing(members: list[Served]) -> None:
    trial = glossary_trial(
        members, demo_labelled_questions(), SETTINGS, demo_glossary(), mode="keyword"
    )
    assert trial.changes == () and set(trial.deltas.values()) == {0.0}


def test_a_dry_run_lists_the_questions_an_edit_moves(members: list[Served]) -> None:
    served = demo_glossary()
    quiet = served.entries[0].model_copy(update={"priority": 0.0})
    edited = Glossary(entries=(quiet, *served.entries[1:]))
    questions = demo_labelled_questions()
    trial = glossary_trial(members, questions, SETTINGS, edited, mode="keyword")
    moved = {c.before.id: c for c in trial.changes}
    assert "royalties-sony" in moved
    change = moved["royalties-sony"]
    assert change.before.gold_ranks != change.after.gold_ranks
    assert trial.count("improved") + trial.count("regressed") + trial.count("changed") == len(
        trial.changes
    )
    for metric, delta in trial.deltas.items():
        assert delta == trial.after.metrics[metric] - trial.before.metrics[metric]
    # nothing was applied: the served indexes answer as before
    again = run_questions(members, questions, SETTINGS, mode="keyword")
    assert again.metrics == trial.before.metrics
    empty = glossary_trial(members, questions, SETTINGS, Glossary(), mode="keyword")
    assert empty.changes and sum(empty.deltas.values()) < 0  # the glossary helps the demo
