"""The standard gRPC services every gRPC tool expects, on the service's own port:

* ``grpc.health.v1.Health`` (Check, List, Watch). The server as a whole (``""``) and
  ``schemaseek.v1.SearchService`` are ``SERVING`` while an engine can answer searches (the
  ``/health/ready`` status is ``ready`` or ``degraded``) and ``NOT_SERVING`` before that and
  when none can; the other services serve as long as the process does. An unknown service is
  ``not_found`` (``SERVICE_UNKNOWN`` on Watch). Watch answers at once, then on every change,
  until the call ends or the server stops. It needs no token (like ``/health/ready``).
* ``grpc.reflection.v1.ServerReflection`` and its ``v1alpha`` twin: list the services and hand
  out the descriptors of the files defining a symbol (with their dependencies), so
  ``grpcurl list`` / ``describe`` work. Descriptors come from the generated code.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from types import ModuleType
from typing import Any, Protocol

from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.request import RequestContext
from protobuf import DescFile, Oneof

from schemaseek.service.backend import Backend
from schemaseek.service.gen.grpc.health.v1 import health_pb
from schemaseek.service.gen.grpc.health.v1.health_connect import Health
from schemaseek.service.gen.grpc.reflection.v1 import reflection_connect as v1_connect
from schemaseek.service.gen.grpc.reflection.v1 import reflection_pb as v1
from schemaseek.service.gen.grpc.reflection.v1alpha import reflection_connect as v1alpha_connect
from schemaseek.service.gen.grpc.reflection.v1alpha import reflection_pb as v1alpha
from schemaseek.service.gen.schemaseek.v1 import admin_pb, search_pb

__all__ = ["SERVICES", "HealthHandler", "ReflectionV1", "ReflectionV1Alpha"]

SEARCH_SERVICE = "schemaseek.v1.SearchService"
Status = health_pb.HealthCheckResponse.ServingStatus
_FILES: tuple[DescFile, ...] = (
    search_pb.desc(),
    admin_pb.desc(),
    health_pb.desc(),
    v1.desc(),
    v1alpha.desc(),
)
SERVICES: tuple[str, ...] = tuple(s.type_name for f in _FILES for s in f.services)
"""Every service served on the port (what reflection lists)."""


class HealthHandler(Health):
    """``grpc.health.v1.Health`` over the backend's readiness (module docstring)."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def status(self, service: str) -> Any | None:
        """The serving status of ``service`` ("" the server), or None when it is unknown."""
        if service in ("", SEARCH_SERVICE):
            return Status.NOT_SERVING if self.backend.status() == "unavailable" else Status.SERVING
        return Status.SERVING if service in SERVICES else None

    async def check(
        self, request: health_pb.HealthCheckRequest, ctx: RequestContext[Any, Any], /
    ) -> health_pb.HealthCheckResponse:
        status = self.status(request.service)
        if status is None:
            raise ConnectError(Code.NOT_FOUND, f"unknown service {request.service!r}")
        return health_pb.HealthCheckResponse(status=status)

    async def list(
        self, request: health_pb.HealthListRequest, ctx: RequestContext[Any, Any], /
    ) -> health_pb.HealthListResponse:
        statuses = {
            name: health_pb.HealthCheckResponse(status=self.status(name))
            for name in ("", *SERVICES)
        }
        return health_pb.HealthListResponse(statuses=statuses)

    async def watch(
        self, request: health_pb.HealthCheckRequest, ctx: RequestContext[Any, Any], /
    ) -> AsyncIterator[health_pb.HealthCheckResponse]:
        last = self.status(request.service) or Status.SERVICE_UNKNOWN
        yield health_pb.HealthCheckResponse(status=last)
        if self.backend.closed:
            return
        async for _event in self.backend.events.subscribe():
            now = self.status(request.service) or Status.SERVICE_UNKNOWN
            if now != last:
                last = now
                yield health_pb.HealthCheckResponse(status=now)


def _symbols(file: DescFile) -> Iterator[str]:
    """Every fully-qualified name ``file`` defines (services, methods, types, nested ones)."""
    for service in file.services:
        yield service.type_name
        yield from (f"{service.type_name}.{m.name}" for m in service.methods)
    pending: list[Any] = [*file.messages, *file.enums]
    while pending:
        item = pending.pop()
        yield item.type_name
        pending += [*getattr(item, "nested_messages", ()), *getattr(item, "nested_enums", ())]


def _closure(file: DescFile) -> list[bytes]:
    """The serialized descriptors of ``file`` and everything it imports, ``file`` first."""
    out: list[DescFile] = []
    pending = [file]
    while pending:
        current = pending.pop(0)
        if all(current.name != f.name for f in out):
            out.append(current)
            pending += list(current.dependencies)
    return [f.proto.to_binary() for f in out]


class _Messages(Protocol):
    """What both reflection versions' generated modules provide (same messages)."""

    ServerReflectionResponse: Any
    FileDescriptorResponse: Any
    ListServiceResponse: Any
    ServiceResponse: Any
    ErrorResponse: Any


class _Reflection:
    """``ServerReflectionInfo`` of one protocol version (``pb``: its generated module)."""

    def __init__(self, pb: ModuleType) -> None:
        self.pb: _Messages = pb
        self.by_symbol = {name: f for f in _FILES for name in _symbols(f)}
        self.by_name = {f.name: f for f in _FILES}

    async def server_reflection_info(
        self, request: AsyncIterator[Any], ctx: RequestContext[Any, Any], /
    ) -> AsyncIterator[Any]:
        async for message in request:
            yield self.answer(message)

    def answer(self, message: Any) -> Any:
        """The response to one reflection request."""
        pb = self.pb
        choice = message.message_request
        field, value = (choice.field, choice.value) if choice is not None else ("", "")
        if field == "list_services":
            services = [pb.ServiceResponse(name=name) for name in SERVICES]
            body = Oneof("list_services_response", pb.ListServiceResponse(service=services))
        elif field in ("file_containing_symbol", "file_by_filename"):
            table = self.by_symbol if field == "file_containing_symbol" else self.by_name
            found = table.get(str(value))
            if found is None:
                body = _error(pb, Code.NOT_FOUND, f"{str(value)[:200]!r} is not known")
            else:
                descriptors = pb.FileDescriptorResponse(file_descriptor_proto=_closure(found))
                body = Oneof("file_descriptor_response", descriptors)
        else:
            body = _error(pb, Code.UNIMPLEMENTED, f"{field or 'an empty request'} is not served")
        return pb.ServerReflectionResponse(
            valid_host=message.host, original_request=message, message_response=body
        )


class ReflectionV1(_Reflection, v1_connect.ServerReflection):
    """``grpc.reflection.v1.ServerReflection``."""

    def __init__(self) -> None:
        super().__init__(v1)


class ReflectionV1Alpha(_Reflection, v1alpha_connect.ServerReflection):
    """``grpc.reflection.v1alpha.ServerReflection`` (what older clients ask for)."""

    def __init__(self) -> None:
        super().__init__(v1alpha)


def _error(pb: _Messages, code: Code, message: str) -> Oneof[Any, Any]:
    numbers = {Code.NOT_FOUND: 5, Code.UNIMPLEMENTED: 12}
    return Oneof(
        "error_response", pb.ErrorResponse(error_code=numbers[code], error_message=message)
    )
