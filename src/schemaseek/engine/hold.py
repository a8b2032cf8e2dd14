"""Rollback holds: an engine started from a rolled-back generation (its manifest says ``hold``)
stays on it. A refresh whose fetched schema has the hash the live source had when the rollback
was made changes nothing (its report says ``held``). The hold ends when the live schema changes
again (that refresh applies it) or when it is released (an admin's explicit refresh)."""

from __future__ import annotations

__all__ = ["RollbackHold"]


class RollbackHold:
    """Whether an engine is held, and the live schema hash it is held against ("" while
    unknown: the next fetch records it)."""

    def __init__(self) -> None:
        self.live_hash: str | None = None

    @property
    def active(self) -> bool:
        return self.live_hash is not None

    def hold(self, live_hash: str = "") -> None:
        """Stay on the served generation while the live schema hash is ``live_hash``."""
        self.live_hash = live_hash

    def release(self) -> bool:
        """End the hold; True if there was one."""
        held, self.live_hash = self.live_hash is not None, None
        return held

    def keeps(self, schema_hash: str) -> bool:
        """True when a refresh that fetched ``schema_hash`` must change nothing (recording the
        hash when it was unknown); False when there is no hold or the live schema moved on
        (which ends the hold)."""
        if self.live_hash is None:
            return False
        if self.live_hash in ("", schema_hash):
            self.live_hash = schema_hash
            return True
        self.live_hash = None
        return False
