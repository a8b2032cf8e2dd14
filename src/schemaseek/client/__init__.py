"""Clients of the schemaseek network service, and their offline fallback.

    from schemaseek.client import OfflineSchemaCache, SchemaSeekClient

:mod:`~schemaseek.client.connect` holds the sync and async clients (Connect protocol) and the
errors they raise; :mod:`~schemaseek.client.offline` the locally cached catalog a search
falls back to when the service cannot be reached. The client is an interface of its own: it
talks to the service only over the wire (the generated protobuf code is all it imports).
"""

from schemaseek.client import connect
from schemaseek.client.connect import *  # noqa: F403  (its __all__ is the public surface)
from schemaseek.client.offline import OfflineSchemaCache

__all__ = ["OfflineSchemaCache"]
__all__ += connect.__all__
