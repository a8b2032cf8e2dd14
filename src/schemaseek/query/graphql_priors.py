"""Score adjustments from what a GraphQL schema says about itself, applied after fusion.

Four facts about a GraphQL schema and its question decide what an agent can use, whatever the names:

* **the role of a type** (:mod:`schemaseek.sources.graphql_roles`): data lives in entity
  types reachable from a query root; input objects, enums, scalars, mutation payloads and
  unreachable types cannot be read, so their scores are scaled by
  ``SearchSettings.type_role_weights``; a connection or edge wrapper hands its score to the
  type it pages over before its own is scaled;
* **the fields of a type**: a type gains ``field_to_type_share`` of its best field's score;
  a field that returns an entity type says more about the type it returns than about its
  owner (``Repository.pullRequests`` matching "open pull requests" asks for ``PullRequest``):
  the returned type gains ``linking_field_target_share`` of its score and the owner only
  ``linking_field_owner_share``;
* **where root fields lead** (:class:`~schemaseek.signals.root_leads.RootLeads`): a root
  field gains ``root_lead_share`` × the score of the best of the ``root_lead_targets``
  leading types it reaches, × ``root_lead_decay`` per hop after the first, ×
  ``root_lead_argument_weight`` per required argument that is not an identifier;
* **the intent of the question** (:func:`schemaseek.query.intent.question_cues`): root fields
  of the other kind (mutations and subscriptions for a read, queries for an action) are scaled
  by ``intent_mismatch_weight``; for an action, mutations whose own verb is of another family
  of change (:mod:`schemaseek.query.action_verbs`) by ``verb_mismatch_weight``; a question
  about the asker's own things brings the viewer root field ``viewer_hop_credit`` hops
  closer to the types it reaches (2 by default).

Scores are the fused scores of one search (any positive scale). The adjustments reorder the
GraphQL items among themselves, never against other sources: afterwards GraphQL scores are
scaled back so that the best of them is no higher than the best GraphQL score before (a SQL
table searched beside a GraphQL API keeps its place). SQL documents pass through untouched.
"""

from __future__ import annotations

from collections.abc import Mapping

from schemaseek.config import SearchSettings
from schemaseek.documents import GRAPHQL_KINDS, DocKind, Document
from schemaseek.query.action_verbs import mutation_families, verb_families
from schemaseek.query.intent import QuestionCues
from schemaseek.signals.root_leads import RootLeads

__all__ = ["apply_graphql_priors"]


def apply_graphql_priors(
    documents: Mapping[str, Document],
    fused: Mapping[str, float],
    cues: QuestionCues,
    settings: SearchSettings,
    leads: RootLeads | None = None,
    notes: dict[str, str] | None = None,
) -> dict[str, float]:
    """``fused`` adjusted as the module docstring says (a new dict; unknown ids kept);
    ``notes`` receives why a root field or a type was credited."""
    share = settings.field_to_type_share
    if (
        not settings.type_role_weights
        and share == 0
        and settings.linking_field_target_share == 0
        and settings.linking_field_owner_share == 0
        and settings.intent_mismatch_weight == 1
        and settings.root_lead_share == 0
    ):
        return dict(fused)
    out = dict(fused)
    # the GraphQL documents this search touches, by kind (fused ids, then those evidence reaches)
    kind_of = {
        doc_id: doc.kind
        for doc_id in fused
        if (doc := documents.get(doc_id)) is not None and doc.kind in GRAPHQL_KINDS
    }
    if not kind_of:
        return out
    before = max(fused[d] for d in kind_of)

    def credit(doc_id: str, score: float) -> bool:
        """Raise ``doc_id`` to ``score``; whether it was raised."""
        if score <= 0:
            return False
        if doc_id not in kind_of:
            doc = documents.get(doc_id)
            if doc is None:
                return False
            kind_of[doc_id] = doc.kind
        if score <= out.get(doc_id, 0.0):
            return False
        out[doc_id] = score
        return True

    # evidence flows up before any scaling: a field to the entity it returns and to its owner,
    # a wrapper to its node
    for doc_id, kind in list(kind_of.items()):
        doc = documents[doc_id]
        if kind is DocKind.GRAPHQL_FIELD and not doc.data.get("input"):
            owner = str(doc.data.get("parent") or "")
            target = _entity_returned(documents, doc)
            if target is None:
                credit(owner, share * fused[doc_id])
                continue
            raised = credit(target, settings.linking_field_target_share * fused[doc_id])
            credit(owner, settings.linking_field_owner_share * fused[doc_id])
            if raised and notes is not None:
                notes[target] = f"returned by {doc_id}"
        elif kind is DocKind.GRAPHQL_TYPE and (wraps := doc.data.get("wraps")):
            credit(str(wraps), fused[doc_id])
    weights = settings.type_role_weights
    entities: list[tuple[str, float]] = []
    for doc_id, kind in kind_of.items():
        if kind is DocKind.GRAPHQL_TYPE:
            role = _role(documents[doc_id])
            out[doc_id] *= weights.get(role, 1.0)
            if role == "entity":
                entities.append((doc_id, out[doc_id]))
    if leads is not None and settings.root_lead_share > 0 and entities:
        entities.sort(key=lambda item: (-item[1], item[0]))
        best = leads.best(
            entities[: settings.root_lead_targets],
            decay=settings.root_lead_decay,
            max_hops=settings.root_lead_hops,
            narrowing=settings.root_lead_argument_weight,
            closer=(
                dict.fromkeys(leads.viewer_roots(), settings.viewer_hop_credit)
                if cues.for_self and settings.viewer_hop_credit
                else None
            ),
        )
        for root, (evidence, target, hops) in best.items():
            kind_of[root] = DocKind.GRAPHQL_ROOT_FIELD
            out[root] = out.get(root, 0.0) + settings.root_lead_share * evidence
            if notes is not None and root not in notes:
                notes[root] = f"leads to {target} in {hops} hop{'s' if hops > 1 else ''}"
    wanted = "query" if cues.intent == "read" else "mutation"
    asked = verb_families(cues.verb) if settings.verb_mismatch_weight < 1 else frozenset()
    for doc_id, kind in kind_of.items():
        operation = documents[doc_id].data.get("operation") or "query"
        if kind is not DocKind.GRAPHQL_ROOT_FIELD:
            continue
        if operation != wanted:
            out[doc_id] *= settings.intent_mismatch_weight
        elif asked and operation == "mutation":
            made = mutation_families(doc_id)
            if made and not made & asked:
                out[doc_id] *= settings.verb_mismatch_weight
    top = max(out[d] for d in kind_of)
    if top > before > 0:  # back on the scale the other sources' scores share
        factor = before / top
        for doc_id in kind_of:
            out[doc_id] *= factor
    return out


def _entity_returned(documents: Mapping[str, Document], field: Document) -> str | None:
    """The entity type a field returns, through a connection or edge wrapper; ``None`` for a
    field of a scalar, enum or other non-entity type (or one this index does not hold)."""
    name = str(field.data.get("named_type") or "")
    returned = documents.get(name)
    if returned is not None and (wraps := returned.data.get("wraps")):
        name = str(wraps)
        returned = documents.get(name)
    if returned is None or returned.kind is not DocKind.GRAPHQL_TYPE:
        return None
    return name if _role(returned) == "entity" else None


def _role(graphql_type: Document) -> str:
    """A type's role (:mod:`schemaseek.sources.graphql_roles`); one without is an entity."""
    return str(graphql_type.data.get("role") or "entity")
