"""The index: :class:`SchemaIndex` and what it reports.

Inside: :mod:`~schemaseek.index.state` (the one constructor of the pipeline's state),
:mod:`~schemaseek.index.diff` (one source's change, as data), :mod:`~schemaseek.index.files`
(the snapshot codec), :mod:`~schemaseek.index.schema_index` (the public API).
"""

from schemaseek.index.reports import BuildProgress, BuildReport, RefreshReport
from schemaseek.index.schema_index import Instrument, SchemaIndex

__all__ = ["BuildProgress", "BuildReport", "Instrument", "RefreshReport", "SchemaIndex"]
