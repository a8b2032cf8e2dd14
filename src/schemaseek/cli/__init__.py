"""The ``schemaseek`` command line: a thin layer over :class:`schemaseek.SchemaIndex`."""

from schemaseek.cli.app import app, main

__all__ = ["app", "main"]
