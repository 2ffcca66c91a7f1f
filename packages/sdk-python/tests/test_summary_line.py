"""The plain summary line conftest.py ends a run with, and what CI makes of a skipped test."""

from __future__ import annotations

from pathlib import Path

import pytest

CONFTEST = Path(__file__).with_name("conftest.py").read_text(encoding="utf-8")
SKIPPING = """
import pytest

def test_passes() -> None:
    assert True

def test_finds_nothing_to_test() -> None:
    pytest.skip("the server under test is missing")
"""


def run_skipping_suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: bool) -> pytest.RunResult:
    if ci:
        monkeypatch.setenv("CI", "true")
    else:
        monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("VERBATIM_TEST_TOTALS", raising=False)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_skipping=SKIPPING)
    return pytester.runpytest_subprocess("-p", "no:cacheprovider")


def test_a_skip_counts_as_skipped_outside_ci(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    result = run_skipping_suite(pytester, monkeypatch, ci=False)
    assert "1 passed, 0 failed, 1 skipped" in result.outlines, result.outlines
    assert result.ret == pytest.ExitCode.OK


def test_a_skip_fails_a_ci_run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    result = run_skipping_suite(pytester, monkeypatch, ci=True)
    assert "1 passed, 1 failed, 0 skipped" in result.outlines, result.outlines
    assert result.ret == pytest.ExitCode.TESTS_FAILED
