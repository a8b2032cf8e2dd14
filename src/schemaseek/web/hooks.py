"""What the workbench needs from its host (the network service), as plain callables.

The workbench never imports the service: ``schemaseek serve`` hands it a
:class:`WorkbenchHooks` (built by :mod:`schemaseek.service.workbench`) with the engines to
search, the glossary and the ``UpdateGlossary`` path that saves one, the admin answers it
shows (``GetEngines``, ``ListSnapshots``, recent events), and the service's own token check.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schemaseek.config import SearchSettings
from schemaseek.evaluation.datasets import Question
from schemaseek.federation import Member
from schemaseek.glossary import Glossary
from schemaseek.sources.base import SourceSchema

__all__ = ["AccessDenied", "ActionFailed", "Viewer", "WorkbenchHooks"]


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who is looking: the token's name and whether its role may change things."""

    name: str
    role: str
    can_edit: bool


class AccessDenied(Exception):
    """The request is refused: ``status`` 401 (no or bad token), 403 (role) or 429 (rate)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class ActionFailed(Exception):
    """An action was refused by the service (an invalid glossary ...); the message says why."""


def _json_error(status: int, message: str) -> bytes:
    return json.dumps({"code": str(status), "message": message}).encode()


@dataclass(slots=True)
class WorkbenchHooks:
    """See the module docstring. Async callables are the service's RPC handlers."""

    members: Callable[[], Sequence[Member]]
    settings: SearchSettings
    glossary: Callable[[], Glossary]
    schemas: Callable[[], Sequence[SourceSchema]]
    save_glossary: Callable[[str], Awaitable[dict[str, Any]]]
    authenticate: Callable[[str | None, str], Viewer]
    engines: Callable[[], Awaitable[dict[str, Any]]]
    snapshots: Callable[[], Awaitable[dict[str, Any]]]
    events: Callable[[], list[dict[str, Any]]]
    questions: Sequence[Question] = ()
    data_dir: Path | None = None
    tokens: bool = False
    """Whether tokens are configured (without them everyone is an anonymous admin)."""
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    """Signs the forms' CSRF tokens."""
    max_body: int = 5 << 20
    """Request bodies past this many bytes are refused (413)."""
    error_body: Callable[[int, str], bytes] = _json_error
    """The host's JSON error shape, for requests that do not ask for HTML."""
