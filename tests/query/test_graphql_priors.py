"""The GraphQL priors: where a field's evidence goes, and the question cues (the asker's own
things, the verb's family of change)."""

from __future__ import annotations

import pytest
from graphql import build_schema

from schemaseek.config import SearchSettings
from schemaseek.documents import Document
from schemaseek.graph import SchemaGraph
from schemaseek.query.action_verbs import mutation_families, verb_families
from schemaseek.query.graphql_priors import apply_graphql_priors
from schemaseek.query.intent import (
    QuestionCues,
    question_cues,
    question_intent,
    speaks_for_self,
)
from schemaseek.signals.root_leads import RootLeads
from schemaseek.sources.graphql import from_schema

SDL = """
type Query { me: User  group(id: ID!): Group  groups: [Group!]!  viewerless(name: String!): User }
type Mutation {
  createGroup(name: String!): Group
  groupUpdate(id: ID!, name: String): Group
  archive_group(id: ID!): Group
  issueUpdate(id: ID!): Group
}
type User { memberships: [Membership!]! }
type Membership { group: Group }
type Group { name: String }
"""


@pytest.fixture(scope="module")
def schema() -> tuple[dict[str, Document], RootLeads]:
    source = from_schema(build_schema(SDL), "api")
    docs = {d.id: d for d in source.documents}
    return docs, RootLeads(SchemaGraph(docs, source.edges), docs)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Which groups do I belong to?", True),
        ("What's on my pending to-do list?", True),
        ("Which tickets are assigned to me?", True),
        ("Show me the snippets I've created.", True),
        ("Where can I download the build artifacts?", False),
        ("How do I page through all rows?", False),
        ("Show me all open orders", False),
        ("Which apps get notified when an order is created?", False),
        # a wish is not ownership; nor is "i.e." or a word of another script
        ("I want the week-by-week totals of the search project", False),
        ("I'd like to know the open rate of last month's newsletter", False),
        ("I'm particularly interested in the busiest channel", False),
        ("I'd like to see the tickets assigned to me", True),
        ("Patients still alive (i.e., no date of death)", False),
        ('The expansion type of the set "Huitième édition"', False),
    ],
)
def test_speaks_for_self(question: str, expected: bool) -> None:
    assert speaks_for_self(question) is expected


def test_question_cues() -> None:
    assert question_cues("Please rename the Backlog section") == QuestionCues(
        "action", "rename", for_self=False
    )
    assert question_cues("Turn off alerts for my board").verb == "turn off"
    assert question_cues("Which groups do I belong to?") == QuestionCues("read", None, True)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Create a project for the spring launch", "action"),
        ("Open a merge request from this branch", "action"),  # ambiguous verb + determiner
        ("Open issues in the web team", "read"),
        # an imperative with an object, verbs outside the list
        ("Ditch the draft I started yesterday", "action"),
        ("Nudge her about the unpaid invoice", "action"),
        ("Kick off the nightly build again", "action"),
        ("Spin up a preview environment", "action"),
        ("Let's shelve the Q2 roadmap", "action"),
        ("Bring back the board we retired", "action"),
        ("Bring all our tasks over from the old tracker", "action"),
        ("Bring up the failed builds of this week", "read"),
        ("Get rid of the webhook we set up for releases", "action"),
        ("Remind me about this invoice on Friday", "action"),
        ("Tell me which invoices are overdue", "read"),
        # a later clause: context first, the request after, until a clause that asks
        ("The spring launch is over, so archive its board", "action"),
        ("If the nightly build fails again, retry it", "action"),
        ("Is there a way to mute this channel?", "action"),
        ("Before we pay, are there any red flags on this claim?", "read"),
        ("As the owner, what can I do with this pledge: edit it, cancel it?", "read"),
        ("For each team, list the open cycles", "read"),
        # reads: look-up verbs, auxiliaries, wh-words, noun phrases, times
        ("Pull up the invoices from March", "read"),
        ("Show the contributors of this repository", "read"),
        ("Chart the signups per day", "read"),
        ("Can the owner approve their own expense?", "read"),
        ("Does the team have a backlog?", "read"),
        ("Which boards did Dana archive?", "read"),
        ("Spend this month by department", "read"),
        ("Comments on the launch post", "read"),
        ("Orders over $100 from last week", "read"),
        # verbs that ask for information; "give" acts only when it grants
        ("Provide the names of the members who joined in 2020", "read"),
        ("State the zip code of the club's treasurer", "read"),
        ("I'd like to know the average rating per genre", "read"),
        ("Give the names of the countries in Europe", "read"),
        ("Give me the admin report for March", "read"),
        ("Give the QA team read-only access to the release pipeline", "action"),
        ("Give a teammate editor rights on our blog", "action"),
    ],
)
def test_question_intent(question: str, expected: str) -> None:
    assert question_intent(question) == expected


@pytest.mark.parametrize(
    ("name", "families"),
    [
        ("Mutation.createIssue", {"create"}),
        ("Mutation.archive_board", {"retire"}),
        ("Mutation.issueUpdate", {"change"}),  # "issue" is a noun here
        ("Mutation.projectUpdateCreate", {"create"}),  # the last part over the first noun
        ("Mutation.clusterQueuePauseDispatch", {"retire"}),  # a part in between
        ("Mutation.deletePost", {"delete"}),
        ("Mutation.postComment", {"create"}),  # a noun-like verb when nothing else is a verb
        ("Mutation.commerceBuyerCounterOffer", set()),
    ],
)
def test_mutation_families(name: str, families: set[str]) -> None:
    assert mutation_families(name) == families


def test_verb_families_of_ambiguous_verbs() -> None:
    assert verb_families("stop") == {"retire", "cancel"}
    assert verb_families("turn off") == {"change", "retire"}
    assert verb_families("turn on") == {"change", "restore"}
    assert verb_families("get rid of") == {"delete"}
    assert verb_families(None) == frozenset()
    assert verb_families("frobnicate") == frozenset()


def test_viewer_roots(schema: tuple[dict[str, Document], RootLeads]) -> None:
    _, leads = schema
    assert leads.viewer_roots() == ["Query.me"]  # a required argument rules out "viewerless"


def _ask(
    schema: tuple[dict[str, Document], RootLeads], cues: QuestionCues, **settings: object
) -> dict[str, float]:
    docs, leads = schema
    return apply_graphql_priors(
        docs, {"Group": 1.0}, cues, SearchSettings.model_validate(settings), leads=leads
    )


def test_own_things_bring_the_viewer_closer(schema: tuple[dict[str, Document], RootLeads]) -> None:
    plain = _ask(schema, QuestionCues("read"), viewer_hop_credit=2)
    mine = _ask(schema, QuestionCues("read", for_self=True), viewer_hop_credit=2)
    # Query.me reaches Group in three hops (me → User → Membership → Group)
    assert plain["Query.me"] == pytest.approx(plain["Query.groups"] * 0.7**2)
    assert mine["Query.me"] == pytest.approx(mine["Query.groups"])  # two hops forgiven
    off = _ask(schema, QuestionCues("read", for_self=True), viewer_hop_credit=0)
    assert off == plain


def test_verb_mismatch_scales_other_families(schema: tuple[dict[str, Document], RootLeads]) -> None:
    out = _ask(schema, QuestionCues("action", "rename"), verb_mismatch_weight=0.5)
    assert out["Mutation.groupUpdate"] == pytest.approx(out["Mutation.issueUpdate"])
    assert out["Mutation.archive_group"] == pytest.approx(0.5 * out["Mutation.groupUpdate"])
    # an action verb in no family changes nothing
    unknown = _ask(schema, QuestionCues("action", "frobnicate"), verb_mismatch_weight=0.5)
    assert unknown["Mutation.archive_group"] == pytest.approx(unknown["Mutation.groupUpdate"])
    off = _ask(schema, QuestionCues("action", "rename"), verb_mismatch_weight=1.0)
    assert off["Mutation.archive_group"] == pytest.approx(off["Mutation.groupUpdate"])


def _fields(
    schema: tuple[dict[str, Document], RootLeads], fused: dict[str, float], **settings: object
) -> dict[str, float]:
    docs, _ = schema
    return apply_graphql_priors(
        docs, fused, QuestionCues("read"), SearchSettings.model_validate(settings)
    )


def test_a_linking_field_is_evidence_for_the_type_it_returns(
    schema: tuple[dict[str, Document], RootLeads],
) -> None:
    out = _fields(schema, {"User.memberships": 1.0})
    assert out["Membership"] == pytest.approx(0.8 * out["User.memberships"])
    assert out["User"] == pytest.approx(0.4 * out["User.memberships"])
    # the explanation names the field, unless the type's own score was higher
    docs, _ = schema
    notes: dict[str, str] = {}
    fused = {"User.memberships": 1.0, "Group": 0.1, "Membership.group": 0.5}
    apply_graphql_priors(docs, fused, QuestionCues("read"), SearchSettings(), notes=notes)
    assert notes["Membership"] == "returned by User.memberships"
    assert notes["Group"] == "returned by Membership.group"
    fused["Group"] = 0.9
    notes.clear()
    apply_graphql_priors(docs, fused, QuestionCues("read"), SearchSettings(), notes=notes)
    assert "Group" not in notes
    # the earlier behaviour: the owner alone, at the field share
    owner_only = _fields(
        schema,
        {"User.memberships": 1.0},
        linking_field_target_share=0,
        linking_field_owner_share=0.8,
    )
    assert "Membership" not in owner_only
    assert owner_only["User"] == pytest.approx(0.8 * owner_only["User.memberships"])


def test_a_scalar_field_credits_its_owner_alone(
    schema: tuple[dict[str, Document], RootLeads],
) -> None:
    out = _fields(schema, {"Group.name": 1.0})
    assert out["Group"] == pytest.approx(0.8 * out["Group.name"])
    assert set(out) == {"Group.name", "Group"}
