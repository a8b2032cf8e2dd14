"""The workbench (:mod:`schemaseek.web`) wired to this service: the same engines, the same
tokens, rate limit and roles, and the admin handlers' own answers.

A page request is authenticated by :class:`~schemaseek.service.auth.TokenAuth` and counted
by the per-client :class:`~schemaseek.service.auth.RateLimiter`, like an RPC; a viewer may
edit when its role may call ``AdminService``. Saving a glossary goes through
:meth:`AdminHandler.apply_glossary`, the body of ``UpdateGlossary``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from connectrpc.code import Code
from connectrpc.errors import ConnectError

from schemaseek.evaluation.datasets import Question
from schemaseek.service.admin_service import AdminHandler
from schemaseek.service.auth import ADMIN_SERVICE, RateLimiter, TokenAuth
from schemaseek.service.backend import Backend
from schemaseek.service.errors import HTTP_CODES, error_body
from schemaseek.service.gen.schemaseek.v1 import admin_pb as pb
from schemaseek.service.settings import ServiceConfig
from schemaseek.sources.base import SourceSchema
from schemaseek.web import AccessDenied, ActionFailed, Viewer, Workbench, WorkbenchHooks

__all__ = ["build_workbench"]

_STATUS = {"unauthenticated": 401, "permission_denied": 403, "resource_exhausted": 429}


def build_workbench(
    config: ServiceConfig,
    backend: Backend,
    admin: AdminHandler,
    auth: TokenAuth,
    limiter: RateLimiter,
    questions: Sequence[Question],
) -> Workbench:
    """The workbench app over ``backend`` (see the module docstring)."""

    def authenticate(header: str | None, client: str) -> Viewer:
        try:
            principal = auth.authenticate(header, client)
        except ConnectError as exc:
            raise AccessDenied(401, exc.message) from None
        if limiter.take(principal.name if auth.enabled else client) > 0:
            raise AccessDenied(429, "rate limit exceeded; retry in a moment")
        try:
            auth.authorize(principal, ADMIN_SERVICE)
            can_edit = True
        except ConnectError:
            can_edit = False
        return Viewer(principal.name, principal.role, can_edit)

    async def save_glossary(glossary_json: str) -> dict[str, Any]:
        request = pb.UpdateGlossaryRequest(glossary_json=glossary_json)
        try:
            answer = await admin.apply_glossary(request)
        except ConnectError as exc:
            raise ActionFailed(exc.message) from None
        data: dict[str, Any] = json.loads(answer.to_json())
        return data

    async def engines() -> dict[str, Any]:
        data: dict[str, Any] = json.loads((await asyncio.to_thread(admin.engines)).to_json())
        return data

    async def snapshots() -> dict[str, Any]:
        data: dict[str, Any] = json.loads((await asyncio.to_thread(admin.snapshots)).to_json())
        return data

    def events() -> list[dict[str, Any]]:
        return [
            {"seq": e.seq, "type": e.type, "source": e.source, "unix_time": e.unix_time,
             "message": e.message, "attributes": e.attributes}
            for e in backend.events.recent()
        ]  # fmt: skip

    def schemas() -> list[SourceSchema]:
        return [schema for unit in backend.units if (schema := unit.schema()) is not None]

    hooks = WorkbenchHooks(
        members=lambda: list(backend.units),
        settings=backend.settings,
        glossary=lambda: backend.glossary,
        schemas=schemas,
        save_glossary=save_glossary,
        authenticate=authenticate,
        engines=engines,
        snapshots=snapshots,
        events=events,
        questions=tuple(questions),
        data_dir=Path(config.data_dir),
        tokens=auth.enabled,
        max_body=config.max_request_bytes,
        error_body=lambda status, message: error_body(
            HTTP_CODES.get(status, Code.UNKNOWN), message
        ),
    )
    return Workbench(hooks)
