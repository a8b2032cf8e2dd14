"""What kind of change an action question asks for, and what kind a mutation makes.

"Rename the Backlog section" asks to *change* something; ``createTimelineItem`` *creates* and
``archiveBoard`` *retires*: the embedding of the question is close to all three when the nouns
agree, so the verb alone has to tell them apart. Verbs fall into a few families of change
(create, change, delete, retire, restore, cancel, approve, send); a question's first verb and
a mutation's name each get their families, and a mutation whose families share none with the
question's is scaled down (``SearchSettings.verb_mismatch_weight``). A verb may sit in two
families ("stop" cancels or pauses); unknown verbs on either side change nothing.

The families are general English for changing things, written from the verbs of
:data:`schemaseek.query.intent.ACTION_VERBS` and the verbs common in GraphQL mutation names
(create/update/delete/archive/...), not from any question set.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["VERB_FAMILIES", "mutation_families", "verb_families"]

_FAMILIES: Mapping[str, str] = {
    "create": (
        "add create post file open new submit register make record log book upload import "
        "insert write draft generate issue raise clone copy duplicate fork invite request "
        "start schedule"
    ),
    "change": (
        "update edit change set rename move modify bump mark assign reassign unassign "
        "configure toggle replace reorder convert patch adjust reschedule transfer link unlink "
        "tag label pin unpin flag promote upgrade rotate reset sync upsert apply turn"
    ),
    "delete": "delete remove drop purge destroy clear erase void discard detach",
    "retire": (
        "archive shelve hide close lock pause suspend disable deactivate freeze mute snooze "
        "stop block ban"
    ),
    "restore": (
        "unarchive restore reopen unlock resume enable activate unfreeze unmute unhide "
        "unsnooze revert undo"
    ),
    "cancel": "cancel stop abort withdraw revoke decline reject deny dismiss unsubscribe leave",
    "approve": (
        "approve accept confirm authorize grant verify unblock resolve complete finish merge "
        "publish release"
    ),
    "send": "send resend notify email message reply respond share invite",
}

VERB_FAMILIES: dict[str, frozenset[str]] = {}
"""Each verb's families of change (see the module docstring)."""
for _family, _verbs in _FAMILIES.items():
    for _verb in _verbs.split():
        VERB_FAMILIES[_verb] = VERB_FAMILIES.get(_verb, frozenset()) | {_family}

_PHRASES: Mapping[str, frozenset[str]] = {
    "turn on": frozenset({"change", "restore"}),  # a setting, or "enable"
    "turn off": frozenset({"change", "retire"}),  # a setting, or "disable"
    "get rid of": frozenset({"delete"}),
}
"""Multi-word verbs whose families are not (only) their first word's: "turn" alone changes a
setting, "turn on" may also enable and "turn off" disable."""

_NOUN_LIKE = (
    "issue post file record log draft request message email tag label flag pin book copy "
    "release merge block schedule invite link reply new open"
)
_ALSO_NOUNS = frozenset(_NOUN_LIKE.split())
"""Verbs that name things as often as actions in a mutation name (``issueUpdate``)."""

_NAME_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def verb_families(verb: str | None) -> frozenset[str]:
    """The families of a question's action verb: a multi-word verb's own ("turn off"
    disables), else its first word's."""
    if not verb:
        return frozenset()
    if verb in _PHRASES:
        return _PHRASES[verb]
    return VERB_FAMILIES.get(verb.split()[0], frozenset())


def mutation_families(name: str) -> frozenset[str]:
    """The families of a mutation's own verb, found among its name parts: the first part
    (``createIssue``, ``archive_board``), else the last (``issueUpdate``,
    ``projectUpdateCreate``), else one between (``clusterQueuePauseDispatch``) — a part that
    is as often a noun (``issue``, ``post``, ``tag``) only when no other verb is there."""
    parts = [p.lower() for p in _NAME_PART.findall(name.rsplit(".", 1)[-1])]
    if not parts:
        return frozenset()
    order = [parts[0], parts[-1], *reversed(parts[1:-1])]
    for allow_nouns in (False, True):
        for part in order:
            if part in VERB_FAMILIES and (allow_nouns or part not in _ALSO_NOUNS):
                return VERB_FAMILIES[part]
    return frozenset()
