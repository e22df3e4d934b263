"""Fixtures of the browser tests: `verrater serve` as a user runs it, and Debian's Chromium
driven by Playwright for Python (pointed at the system browser; nothing is downloaded).

Without a Chromium the browser tests are skipped, and the run's summary says so loudly, naming
the package to install; every other test here runs without one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from services.bench.common import free_port

ROOT = Path(__file__).resolve().parents[2]
#: Screenshots of the browser tests (gitignored), kept after the run.
ARTIFACTS = ROOT / "test-artifacts" / "web"
CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
#: The flags this machine's Chromium needs headless as root, with its closed network.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
MISSING = (
    "BROWSER TESTS SKIPPED: no Chromium found ({}). Install Debian's package `chromium` "
    "(apt-get install chromium) to run them; .ci/run does."
)
_SKIPPED = pytest.StashKey[bool]()
#: axe-core, the accessibility checker, from npm (web/package.json's devDependencies).
AXE = ROOT / "web" / "node_modules" / "axe-core" / "axe.min.js"
AXE_MISSING = (
    "ACCESSIBILITY CHECKS SKIPPED: axe-core is not installed ({}). Run `make web` (or `npm ci` "
    "in web/) to install it; .ci/run does."
)
_AXE_SKIPPED = pytest.StashKey[bool]()


def chromium() -> str | None:
    """The Chromium to drive: VERRATER_TEST_CHROMIUM if set ("none": behave as a machine
    without one), else Debian's."""
    configured = os.environ.get("VERRATER_TEST_CHROMIUM")
    if configured == "none":
        return None
    for candidate in (configured, *CHROMIUM_CANDIDATES):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which("chromium")
    return found


@dataclass(frozen=True)
class Served:
    """A running `verrater serve`: its gRPC port and its page."""

    grpc_port: int
    url: str


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    grpc_port, web_port = free_port(), free_port()
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    with log.open("wb") as output:
        child = subprocess.Popen(
            [sys.executable, "-m", "services.cli", "serve", "--web-bind", f"127.0.0.1:{web_port}"],
            cwd=ROOT,
            env={**os.environ, "VERRATER_BIND": f"127.0.0.1:{grpc_port}"},
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{web_port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(url + "/healthz", timeout=1):
                    break
            except OSError:
                if child.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"verrater serve did not start: {log.read_text()}") from None
                time.sleep(0.1)
        yield Served(grpc_port, url)
    finally:
        child.terminate()
        child.wait(timeout=30)


# Module-scoped: the sync API holds an event loop in this thread while it runs, which the
# asyncio tests of other modules must not meet.
@pytest.fixture(scope="module")
def browser(request: pytest.FixtureRequest) -> Iterator[Any]:
    executable = chromium()
    if executable is None:
        request.config.stash[_SKIPPED] = True
        pytest.skip(MISSING.format(", ".join(CHROMIUM_CANDIDATES)))
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="module")
def axe(request: pytest.FixtureRequest) -> str:
    """axe-core's script, to inject into pages (contexts made with bypass_csp: the door's CSP
    forbids scripts it did not serve)."""
    if not AXE.is_file():
        request.config.stash[_AXE_SKIPPED] = True
        pytest.skip(AXE_MISSING.format(AXE.relative_to(ROOT)))
    return AXE.read_text()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    if config.stash.get(_SKIPPED, False):
        terminalreporter.write_sep("!", "BROWSER TESTS SKIPPED", red=True, bold=True)
        terminalreporter.write_line(MISSING.format(", ".join(CHROMIUM_CANDIDATES)), red=True)
    if config.stash.get(_AXE_SKIPPED, False):
        terminalreporter.write_sep("!", "ACCESSIBILITY CHECKS SKIPPED", red=True, bold=True)
        terminalreporter.write_line(AXE_MISSING.format(AXE.relative_to(ROOT)), red=True)
