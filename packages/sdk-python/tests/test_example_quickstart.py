"""examples/python-quickstart, run as a program against the live server, as its README says."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, Optional

from .conftest import Account, LiveServer

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "python-quickstart" / "quickstart.py"


def run_example(api_key: Optional[str], base_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env: Dict[str, str] = {name: value for name, value in os.environ.items() if name != "VERBATIM_API_KEY"}
    env["VERBATIM_BASE_URL"] = base_url
    if api_key is not None:
        env["VERBATIM_API_KEY"] = api_key
    return subprocess.run(
        [sys.executable, str(EXAMPLE), *args], env=env, capture_output=True, text=True, timeout=180, check=False
    )


def test_it_prints_the_service_the_account_its_balance_and_its_allowance(account: Account) -> None:
    result = run_example(account.api_key, account.base_url)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("verbatim ") and lines[0].endswith(f" is up at {account.base_url}/api/v2")
    assert lines[1:3] == [f"account {account.account_id} on the pro plan", "credits: 1000"]
    assert lines[3].startswith("requests left this minute: ")


def test_given_a_video_it_prints_the_start_of_its_transcript(account: Account, live: LiveServer) -> None:
    result = run_example(account.api_key, account.base_url, live.info["videos"]["captioned"])
    assert result.returncode == 0, result.stderr
    summary, *first_segments = result.stdout.splitlines()[4:]
    assert summary.endswith("segments, 1 credit(s)")
    assert len(first_segments) == 3 and all(line.startswith("[00:") for line in first_segments)


def test_it_exits_1_with_the_error_code_for_a_refused_key_and_2_without_a_key(live: LiveServer) -> None:
    refused = run_example("vb_live_" + "0" * 32, live.info["api"]["baseUrl"])
    assert refused.returncode == 1
    assert refused.stderr.startswith("unauthorized: ")
    assert run_example(None, live.info["api"]["baseUrl"]).returncode == 2
