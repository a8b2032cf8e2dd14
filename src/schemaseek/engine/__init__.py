"""Engines: one per source, with snapshots, circuit breakers and a polling helper."""

from __future__ import annotations

from schemaseek.engine.core import SourceEngine
from schemaseek.engine.polling import Poller
from schemaseek.engine.report import EngineCancelled, EngineReport, EngineState

__all__ = [
    "EngineCancelled",
    "EngineReport",
    "EngineState",
    "Poller",
    "SourceEngine",
]
