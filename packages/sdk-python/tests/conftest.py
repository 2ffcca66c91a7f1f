"""The session's live Verbatim, accounts on it, a webhook receiver, and the plain summary line CI adds up."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from verbatim import AsyncVerbatim, Verbatim

# test_summary_line.py runs this file's summary hooks on suites of its own.
pytest_plugins = ["pytester"]

API_DIR = Path(__file__).resolve().parents[3] / "apps" / "api"
SERVER_START_SECONDS = 180.0


class LiveServer:
    """The process of apps/api/test/support/python-sdk-server.ts: what it printed when it started, and its commands."""

    def __init__(self) -> None:
        self._process = subprocess.Popen(
            ["node", "--import", "tsx", "test/support/python-sdk-server.ts"],
            cwd=API_DIR,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self._lock = threading.Lock()
        self.info: Dict[str, Any] = self._read_line(SERVER_START_SECONDS)

    def _read_line(self, timeout: float) -> Dict[str, Any]:
        assert self._process.stdout is not None
        lines: List[str] = []
        reader = threading.Thread(target=lambda: lines.append(self._process.stdout.readline()))  # type: ignore[union-attr]
        reader.start()
        reader.join(timeout)
        if not lines or not lines[0]:
            self.close()
            raise RuntimeError(f"the live server answered nothing within {timeout} s")
        answer: Dict[str, Any] = json.loads(lines[0])
        if "error" in answer:
            raise RuntimeError(f"the live server failed: {answer['error']}")
        return answer

    def command(self, **command: Any) -> Dict[str, Any]:
        assert self._process.stdin is not None
        with self._lock:
            self._process.stdin.write(json.dumps(command) + "\n")
            self._process.stdin.flush()
            return self._read_line(60.0)

    def close(self) -> None:
        if self._process.stdin and not self._process.stdin.closed:
            self._process.stdin.close()
        try:
            self._process.wait(30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


@dataclass(frozen=True)
class Account:
    """A fresh account on the live server: its own balance and allowance, so tests do not share them."""

    account_id: str
    api_key: str
    webhook_secret: str
    base_url: str


@pytest.fixture(scope="session")
def live() -> Iterator[LiveServer]:
    server = LiveServer()
    yield server
    server.close()


def new_account(live: LiveServer, server: str = "api", credits: Optional[int] = 1000) -> Account:
    answer = live.command(command="account", server=server, credits=credits)
    base_url = live.info[server]["baseUrl"]
    return Account(answer["accountId"], answer["apiKey"], answer["webhookSecret"], base_url)


@pytest.fixture
def account(live: LiveServer) -> Account:
    return new_account(live)


@pytest.fixture
def client(account: Account) -> Iterator[Verbatim]:
    with Verbatim(api_key=account.api_key, base_url=account.base_url) as verbatim:
        yield verbatim


@pytest.fixture
async def async_client(account: Account) -> AsyncIterator[AsyncVerbatim]:
    async with AsyncVerbatim(api_key=account.api_key, base_url=account.base_url) as verbatim:
        yield verbatim


@dataclass
class Delivery:
    path: str
    headers: Dict[str, str]
    body: bytes


@dataclass
class Receiver:
    """A loopback webhook endpoint: the live servers may deliver to http on loopback in these tests."""

    url: str
    deliveries: List[Delivery] = field(default_factory=list)
    arrived: threading.Condition = field(default_factory=threading.Condition)

    def wait_for(self, path: str, timeout: float = 30.0) -> Delivery:
        with self.arrived:
            found = self.arrived.wait_for(
                lambda: next((d for d in self.deliveries if d.path == path), None), timeout=timeout
            )
        if found is None:
            raise AssertionError(f"no delivery to {path} within {timeout} s: {[d.path for d in self.deliveries]}")
        return next(d for d in self.deliveries if d.path == path)


@pytest.fixture(scope="session")
def receiver() -> Iterator[Receiver]:
    received = Receiver(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            with received.arrived:
                received.deliveries.append(Delivery(self.path, dict(self.headers.items()), body))
                received.arrived.notify_all()
            self.send_response(204)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    received.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield received
    server.shutdown()
    server.server_close()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Ends the run with a plain ``N passed, N failed, N skipped`` line, and appends the counts and
    the failed tests' ids to ``VERBATIM_TEST_TOTALS`` as the vitest runs do, so the repository's
    test command adds them up and names what failed. CI expects no test of this suite to skip
    (scripts/expected-skips.mjs): under CI=true a skip counts as a failure."""
    stats = terminalreporter.stats
    passed = len(stats.get("passed", []))
    failures = [f"sdk-python {report.nodeid}" for report in stats.get("failed", []) + stats.get("error", [])]
    skips = [report.nodeid for report in stats.get("skipped", [])]
    if os.environ.get("CI"):
        failures += [f"sdk-python {nodeid} (skipped, which CI does not expect)" for nodeid in skips]
        skips = []
    failed = len(failures)
    skipped = len(skips)
    terminalreporter.write_line(f"\n{passed} passed, {failed} failed, {skipped} skipped")
    totals = os.environ.get("VERBATIM_TEST_TOTALS")
    if totals:
        counts = {"passed": passed, "failed": failed, "skipped": skipped, "failures": failures}
        with open(totals, "a", encoding="utf-8") as file:
            file.write(json.dumps(counts) + "\n")


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Under CI=true a skipped test fails the run's exit status too, which pytest leaves at 0."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if os.environ.get("CI") and reporter is not None and reporter.stats.get("skipped"):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
