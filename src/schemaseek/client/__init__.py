"""Clients of the schemaseek network service, and their offline fallback.

    from schemaseek.client import CatalogCache, SchemaSeekClient

:mod:`~schemaseek.client.connect` holds the sync and async clients (Connect protocol) and the
errors they raise; :mod:`~schemaseek.client.catalog_cache` the locally cached catalog a search
falls back to when the service cannot be reached. The client is an interface of its own: it
talks to the service only over the wire (the generated protobuf code is all it imports).
"""

from schemaseek.client.catalog_cache import CatalogCache
from schemaseek.client.connect import (
    AsyncSchemaSeekClient,
    DeadlineExceeded,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    RateLimited,
    SchemaSeekClient,
    ServiceError,
    Unauthenticated,
    Unavailable,
    search_request,
)

__all__ = [
    "AsyncSchemaSeekClient",
    "CatalogCache",
    "DeadlineExceeded",
    "InvalidArgument",
    "NotFound",
    "PermissionDenied",
    "RateLimited",
    "SchemaSeekClient",
    "ServiceError",
    "Unauthenticated",
    "Unavailable",
    "search_request",
]
