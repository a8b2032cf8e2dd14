"""A real headless Chromium for the workbench tests: Debian's ``chromium`` driven by Playwright
for Python (the system browser; nothing is downloaded). Absent → skipped, or failed under
``SCHEMASEEK_REQUIRE_SERVICES=1`` (``.ci/run`` installs the package when it is missing).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from tests.helpers.services import unavailable

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Playwright

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "docs" / "workbench"


def require_chromium() -> Path:
    if not CHROMIUM.exists():
        unavailable(f"{CHROMIUM} is missing (apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        unavailable("playwright is not installed (pip install -e '.[dev]')")
    return CHROMIUM


@contextmanager
def browser_context(playwright: Playwright) -> Iterator[BrowserContext]:
    """A fresh browser (its own user-data directory), closed afterwards."""
    profile = tempfile.mkdtemp(prefix="schemaseek-chromium-")
    context = playwright.chromium.launch_persistent_context(
        profile,
        executable_path=str(require_chromium()),
        headless=True,
        args=ARGS,
        viewport={"width": 1280, "height": 900},
    )
    try:
        yield context
    finally:
        context.close()
        shutil.rmtree(profile, ignore_errors=True)


def keep_screenshot(path: Path) -> Path:
    """Copy a screenshot the test saved under its tmp dir into ``docs/workbench/``."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    target = SCREENSHOTS / path.name
    shutil.copyfile(path, target)
    return target
