"""Whether a question reads data or asks for an action, by a small rule set (no model).

A question that reads ("how many open orders…", "show me…", "which teams have…") is answered by
query operations; one that acts ("create a draft order", "please archive the board", "how do I
invite a user?") by mutations. The rule looks at the first verb after the usual lead-ins
("please", "can you", "I want to", "how do I", ...): an action verb makes it an action, anything
else a read. The verb list is general English for changing things, written without looking
at any benchmark question, then extended with the dev halves' misses (bench/QUALITY.md);
words that are as often nouns or reads ("open", "issue", "record") count only when a
determiner follows, and "report", "list" or "order" never.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "ACTION_VERBS",
    "AMBIGUOUS_VERBS",
    "Intent",
    "QuestionCues",
    "question_cues",
    "question_intent",
    "speaks_for_self",
]

Intent = Literal["read", "action"]

ACTION_VERBS = frozenset(
    {
        "accept", "activate", "add", "allow", "annul", "append", "apply", "approve", "archive",
        "assign", "attach", "authorize", "ban", "block", "book", "bookmark", "cancel", "change",
        "charge", "clear", "clone", "close", "complete", "configure", "confirm", "connect",
        "convert", "copy", "create", "deactivate", "decline", "delete", "deny", "deploy",
        "detach", "disable", "disconnect", "dismiss", "duplicate", "edit", "enable", "enroll",
        "favorite", "favourite", "flag", "follow", "fork", "freeze", "grant", "hide", "import",
        "install", "invite", "join", "kick", "leave", "like", "link", "lock", "mark", "merge",
        "migrate", "modify", "move", "mute", "notify", "offer", "pause", "pay", "pin", "post",
        "promote", "propose", "publish", "purge", "react", "reassign", "redeploy", "refund",
        "register", "reject", "remove", "rename", "reopen", "reorder", "replace", "reply",
        "request", "rerun", "reset", "resolve", "respond", "restart", "restore", "resume",
        "retry", "revert", "revoke", "rotate", "run", "save", "schedule", "send", "set", "share",
        "shelve", "snooze", "star", "start", "stop", "submit", "subscribe", "suspend", "sync",
        "tag", "toggle", "transfer", "trigger", "unarchive", "unassign", "unblock", "unfollow",
        "unfreeze", "unlink", "unlock", "unmute", "unpin", "unpublish", "unstar", "unsubscribe",
        "update", "upgrade", "upload", "upsert", "verify", "void", "withdraw",
    }
)  # fmt: skip
"""Verbs that change something (a question starting with one asks for an action)."""

AMBIGUOUS_VERBS = frozenset(
    {"ask", "file", "give", "issue", "keep", "make", "open", "record", "ship", "take"}
)
"""Words that act only when a determiner follows ("open a merge request", not "open issues")."""
_DETERMINERS = frozenset(
    {"a", "an", "the", "my", "our", "your", "their", "this", "that", "these", "those", "every",
     "all", "each", "some", "one", "two", "three"}
)  # fmt: skip

_LEAD_INS = (
    "please", "kindly", "can you", "could you", "would you", "will you", "can i", "could i",
    "can we", "could we", "i want to", "i need to", "i would like to", "i'd like to",
    "we want to", "we need to", "let me", "help me", "how do i", "how can i", "how do we",
    "how can we", "how to", "how would i", "is it possible to", "i must", "we must",
    "go ahead and", "try to", "quickly", "just", "also", "then", "now",
)  # fmt: skip
_WORD = re.compile(r"[a-z][a-z']*")


def _first_words(question: str) -> list[str]:
    text = " ".join(_WORD.findall(question.lower()))
    changed = True
    while changed:
        changed = False
        for lead in _LEAD_INS:
            if text == lead or text.startswith(lead + " "):
                text = text[len(lead) :].lstrip()
                changed = True
    return text.split()


def _action_verb(question: str) -> str | None:
    words = _first_words(question)
    if not words:
        return None
    first = words[0]
    if first in ACTION_VERBS:
        return first
    second = words[1] if len(words) > 1 else ""
    if first == "turn" and second in ("on", "off"):
        return f"turn {second}"
    if first in AMBIGUOUS_VERBS and second in _DETERMINERS:
        return first
    return None


def question_intent(question: str) -> Intent:
    """``"action"`` when the question's first verb (after lead-ins) changes something
    (:data:`ACTION_VERBS`), else ``"read"``. ``turn on/off`` counts as an action."""
    return "read" if _action_verb(question) is None else "action"


@dataclass(frozen=True, slots=True)
class QuestionCues:
    """What the wording of a question tells the GraphQL priors (query/graphql_priors.py)."""

    intent: Intent
    verb: str | None = None
    """The action verb an action question starts with ("rename", "turn off")."""
    for_self: bool = False
    """Whether it asks about the asker's own things (:func:`speaks_for_self`)."""


def question_cues(question: str) -> QuestionCues:
    """The cues of one question (rules only, no model)."""
    verb = _action_verb(question)
    return QuestionCues(
        "read" if verb is None else "action", verb, for_self=speaks_for_self(question)
    )


_SELF = re.compile(r"\b(my|mine|myself|i've|i'm|i'd|me|i)\b")
_NOT_OWNER_BEFORE_I = frozenset(
    {"can", "could", "should", "may", "might", "would", "will", "must", "how", "where", "when",
     "if", "what"}
)  # fmt: skip
"""Words before "I" that make it a generic user ("where can I download…", "how do I page…")."""
_NOT_OWNER_BEFORE_ME = frozenset({"show", "give", "tell", "let", "help", "notify", "remind"})


def speaks_for_self(question: str) -> bool:
    """Whether the asker asks about their own things ("my to-do list", "which groups do I
    belong to", "tickets assigned to me"): a possessive "my"/"mine", or "I"/"me" not used as
    a generic user ("where can I…", "how do I…") or an idiom ("show me…")."""
    words = _WORD.findall(question.lower())
    for at, word in enumerate(words):
        if _SELF.fullmatch(word) is None:
            continue
        before = words[max(0, at - 2) : at]
        if word == "i":
            if not any(w in _NOT_OWNER_BEFORE_I for w in before):
                return True
        elif word == "me":
            if not before or before[-1] not in _NOT_OWNER_BEFORE_ME:
                return True
        else:
            return True
    return False
