"""Whether a question reads data or asks for an action, by a small rule set (no model).

A question that reads ("how many open orders…", "show me…", "which teams have…") is answered by
query operations; one that acts ("create a draft order", "please archive the board", "how do I
invite a user?") by mutations. The rule looks at the first word after the usual lead-ins
("please", "can you", "let's", "how do I", "is there a way to", ...):

* a verb of :data:`ACTION_VERBS` makes it an action. That list is general English for changing
  things, written without looking at any benchmark question, then extended with the dev halves'
  misses (bench/QUALITY.md); words that are as often nouns or reads ("open", "issue", "record")
  count only when a determiner follows, and "report", "list" or "order" never; "give" counts
  only when it grants ("give the QA team access"), not when it asks ("give the names of…");
* otherwise, an **imperative with an object** is an action: any English verb in its base form
  (lemminflect's dictionary) followed by a determiner or an object pronoun ("nudge her",
  "ditch the draft"), or by a particle and one ("kick off the build"), unless the verb only
  looks things up or asks for information (:data:`READ_VERBS`: "show", "provide", "state",
  "determine", "know", ...), the first word is an auxiliary ("can the owner
  approve…" asks), or the pair is a time ("spend this month"). Held out, the verb list alone
  missed actions phrased with everyday verbs (session 16, bench/QUALITY.md);
* both tests run at the start of the question and then of each later clause (after a comma,
  colon, dash, "so", "then" or "please": "Q3 is over, so archive the board"), until a clause
  that asks: a wh-word, an auxiliary or a look-up verb first ("before we pay, are there any
  red flags?");
* anything else is a read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Literal

from lemminflect import getAllLemmas

__all__ = [
    "ACTION_VERBS",
    "AMBIGUOUS_VERBS",
    "READ_VERBS",
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
    {"ask", "file", "issue", "keep", "make", "open", "record", "ship", "take"}
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
    "go ahead and", "try to", "quickly", "just", "also", "then", "now", "let's", "lets",
    "let us", "is there a way to", "is there any way to", "any way to", "is there a way i can",
    "what's the way to",
)  # fmt: skip
_WORD = re.compile(r"[^\W\d_](?:[^\W\d_]|')*")  # letters of any script: "huitième" is one word

READ_VERBS = frozenset(
    {
        "analyse", "analyze", "assess", "break", "browse", "calculate", "chart", "check",
        "compare", "compile", "compute", "count", "describe", "detail", "determine", "display",
        "do", "enumerate", "estimate", "evaluate", "examine", "explain", "fetch", "figure",
        "filter", "find", "get", "give", "graph", "help", "identify", "indicate", "inspect",
        "investigate", "know", "learn", "let", "list", "look", "lookup", "measure", "mention",
        "name", "outline", "plot", "print", "provide", "pull", "query", "rank", "read",
        "report", "retrieve", "return", "search", "see", "show", "sort", "specify", "state",
        "sum", "summarise", "summarize", "tally", "tell", "total", "trace", "understand",
        "view", "visualise", "visualize", "walk",
    }
)  # fmt: skip
"""Verbs that only look things up: an imperative starting with one reads ("show the…",
"provide the names of…", "state the…"), except "pull" with a particle other than "up" ("pull
out the …") and "give" in the sense of granting ("give the QA team access")."""
_GRANTED = frozenset(
    {"access", "admin", "control", "credit", "credits", "ownership", "permission",
     "permissions", "right", "rights", "role", "roles", "seat", "seats"}
)  # fmt: skip
"""What one gives someone, as opposed to information ("give the names of…" reads)."""
_AUXILIARIES = frozenset(
    {"am", "are", "can", "could", "did", "do", "does", "had", "has", "have", "is", "may",
     "might", "must", "shall", "should", "was", "were", "will", "would"}
)  # fmt: skip
_WH_WORDS = frozenset({"what", "which", "who", "whom", "whose", "when", "where", "why", "how"})
_OBJECTS = _DETERMINERS | {"me", "her", "him", "them", "it", "us", "everyone", "everybody",
                           "everything", "whoever"}  # fmt: skip
_PARTICLES = frozenset({"up", "down", "off", "out", "away", "back"})
_TIME_WORDS = frozenset(
    {"week", "weeks", "month", "months", "quarter", "quarters", "year", "years", "day", "days",
     "time", "morning", "evening", "night", "sprint", "cycle", "season"}
)  # fmt: skip
"""Nouns that make "<word> this/last/every <noun>" a time, not an object ("spend this month")."""


@cache
def _is_base_verb(word: str) -> bool:
    """Whether ``word`` is an English verb in its base form (an imperative can start with it)."""
    return word in getAllLemmas(word).get("VERB", ())


def _imperative_with_object(words: list[str]) -> bool:
    if len(words) < 2 or words[0] in _AUXILIARIES:
        return False
    verb, second = words[0], words[1]
    third = words[2] if len(words) > 2 else ""
    if verb in READ_VERBS:
        return verb == "pull" and second in _PARTICLES - {"up"}
    if verb == "bring" and second in ("up", "me"):  # "bring up the…" reads
        return False
    if second in _OBJECTS:
        shaped = third not in _TIME_WORDS
    else:
        shaped = second in _PARTICLES and (third in _OBJECTS or not third)
    # the dictionary (loaded on first use, about 0.2 s) is asked only for this shape
    return shaped and _is_base_verb(verb)


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


def _clause_action_verb(words: list[str]) -> str | None:
    """The action verb that the first words of one clause (lead-ins removed) start with."""
    if not words:
        return None
    first = words[0]
    if first in ACTION_VERBS:
        return first
    second = words[1] if len(words) > 1 else ""
    if first == "turn" and second in ("on", "off"):
        return f"turn {second}"
    if first == "get" and second == "rid" and words[2:3] == ["of"]:
        return "get rid of"
    if first == "give":  # grants ("give her admin rights"), else asks ("give me the names…")
        granted = second not in ("me", "us") and _GRANTED.intersection(words[1:8])
        return first if granted else None
    if first in AMBIGUOUS_VERBS and second in _DETERMINERS:
        return first
    if _imperative_with_object(words):
        return first
    return None


_CLAUSE_BOUNDARY = re.compile(r"[,;:.!?\u2013\u2014]+|\s-\s|\b(?:so|then|please)\b", re.IGNORECASE)
_ASKING = _WH_WORDS | _AUXILIARIES | READ_VERBS


def _action_verb(question: str) -> str | None:
    """The action verb at the start of the question or of a later clause ("Q3 is over, so
    archive the board"); the search stops at the first clause that asks (a wh-word, an
    auxiliary or a look-up verb first: "before we pay, are there any red flags?")."""
    for clause in _CLAUSE_BOUNDARY.split(question):
        words = _first_words(clause)
        found = _clause_action_verb(words)
        if found is not None:
            return found
        if words and words[0] in _ASKING:
            return None
    return None


def question_intent(question: str) -> Intent:
    """``"action"`` when the question's first verb (after lead-ins) changes something
    (:data:`ACTION_VERBS`, or an imperative with an object), else ``"read"``. ``turn on/off``
    and ``get rid of`` count as actions."""
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
_WISHING = frozenset(
    {"want", "wanted", "would", "like", "need", "wish", "wonder", "wondering", "interested",
     "curious", "hope", "prefer", "expect", "think", "believe", "care", "particularly",
     "really", "also", "just", "mainly", "especially", "only"}
)  # fmt: skip
"""Words after "I" / "I'd" / "I'm" that make it the asker's wish, not their things ("I want
the full name of…", "I'd like to know…", "I'm particularly interested in…")."""
_ABBREVIATIONS = re.compile(r"\b(?:i\.e|e\.g)\.")


def speaks_for_self(question: str) -> bool:
    """Whether the asker asks about their own things ("my to-do list", "which groups do I
    belong to", "tickets assigned to me"): a possessive "my"/"mine", or "I"/"me" not used as
    a generic user ("where can I…", "how do I…"), an idiom ("show me…") or a wish ("I'd like
    to know…")."""
    words = _WORD.findall(_ABBREVIATIONS.sub(" ", question.lower()))
    for at, word in enumerate(words):
        if _SELF.fullmatch(word) is None:
            continue
        before = words[max(0, at - 2) : at]
        if word in ("i", "i'd", "i'm") and at + 1 < len(words) and words[at + 1] in _WISHING:
            continue
        if word == "i":
            if not any(w in _NOT_OWNER_BEFORE_I for w in before):
                return True
        elif word == "me":
            if not before or before[-1] not in _NOT_OWNER_BEFORE_ME:
                return True
        else:
            return True
    return False
