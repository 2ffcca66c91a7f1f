"""``python -m verbatim`` run as a process: every command, stdout, ``--out``, the exit codes and the progress display.

The session's live server (tests/conftest.py) answers the transcript as JSON, the listings, the errors and the speech
job. ``languages``, and the subtitle and text renderings the server writes out, are answered by ``StandIn``, a
loopback server sending the contract's shapes, until the live server serves them.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

from verbatim._cli import EXIT_ACCOUNT, EXIT_CONTENT, EXIT_OK, EXIT_REQUEST

from .conftest import Account, LiveServer, new_account

PACKAGE_DIR = Path(__file__).resolve().parent.parent


def cli(
    account: Optional[Account], *args: str, base_url: Optional[str] = None, cwd: Optional[Path] = None
) -> subprocess.CompletedProcess[str]:
    """``python -m verbatim ARGS`` with the account's key and server in its environment, stdout and stderr piped."""
    return subprocess.run(
        [sys.executable, "-m", "verbatim", *args],
        env=environment(account, base_url),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        cwd=cwd,
    )


def environment(account: Optional[Account], base_url: Optional[str] = None) -> Dict[str, str]:
    env = {name: value for name, value in os.environ.items() if not name.startswith("VERBATIM_")}
    if account is not None:
        env["VERBATIM_API_KEY"] = account.api_key
        env["VERBATIM_BASE_URL"] = base_url or account.base_url
    return env


def jfk(live: LiveServer) -> str:
    """The JFK recording under an address of its own, so each run is a new speech job."""
    return f"{live.info['media']['jfk']}?{uuid.uuid4().hex}"


def test_transcript_json_prints_the_api_answer_with_its_segments(account: Account, live: LiveServer) -> None:
    video = live.info["videos"]["captioned"]
    run = cli(account, "transcript", video, "--format", "json")
    assert (run.returncode, run.stderr) == (EXIT_OK, "")
    answer = json.loads(run.stdout)
    assert answer["ok"] is True and answer["request_id"].startswith("req_")
    assert (answer["data"]["video_id"], answer["data"]["source"]) == (video, "captions")
    assert len(answer["data"]["segments"]) > 0
    assert answer["usage"]["credits_spent"] == 1


def test_transcript_out_writes_the_file_and_nothing_to_stdout(
    account: Account, live: LiveServer, tmp_path: Path
) -> None:
    video = live.info["videos"]["captioned"]
    run = cli(account, "transcript", video, "--format", "json", "--out", "transcript.json", cwd=tmp_path)
    assert (run.returncode, run.stdout) == (EXIT_OK, "")
    assert run.stderr == "wrote transcript.json\n"
    written = json.loads((tmp_path / "transcript.json").read_text(encoding="utf-8"))
    assert written["data"]["video_id"] == video


def test_a_private_video_exits_4_with_the_error_on_stderr(account: Account, live: LiveServer) -> None:
    run = cli(account, "transcript", live.info["videos"]["private"])
    assert run.returncode == EXIT_CONTENT == 4
    assert run.stdout == ""
    assert run.stderr.startswith("verbatim: private (4001): ")
    assert "(request req_" in run.stderr


def test_an_account_without_credits_exits_2(live: LiveServer) -> None:
    broke = new_account(live, credits=0)
    run = cli(broke, "transcript", live.info["videos"]["captioned"], "--format", "json")
    assert run.returncode == EXIT_ACCOUNT == 2
    assert run.stderr.startswith("verbatim: insufficient_credits (2001): ")


def test_a_wrong_command_line_and_a_missing_key_exit_1(account: Account) -> None:
    unknown_format = cli(account, "transcript", "jNQXAC9IVRw", "--format", "docx")
    assert unknown_format.returncode == EXIT_REQUEST == 1
    assert "invalid choice: 'docx'" in unknown_format.stderr
    assert cli(account, "channel", "@jawed", "--limit", "0").returncode == EXIT_REQUEST
    no_key = cli(None, "transcript", "jNQXAC9IVRw")
    assert no_key.returncode == EXIT_REQUEST
    assert no_key.stderr == "verbatim: set VERBATIM_API_KEY to your API key (vb_live_...)\n"
    refused_key = cli(Account("", "vb_live_" + "0" * 32, "", account.base_url), "search", "zoo")
    assert (refused_key.returncode, refused_key.stderr.split(":")[1]) == (EXIT_REQUEST, " unauthorized (1101)")


def test_channel_lists_the_newest_videos_up_to_the_limit_or_the_one_already_seen(
    account: Account, live: LiveServer
) -> None:
    channel, video_ids = live.info["lists"]["channel"]["channel"], live.info["lists"]["channel"]["videoIds"]
    limited = cli(account, "channel", channel, "--limit", "3")
    assert limited.returncode == EXIT_OK
    assert [line.split("\t")[0] for line in limited.stdout.splitlines()] == video_ids[:3]
    assert all(line.split("\t")[1] for line in limited.stdout.splitlines())
    since = cli(account, "channel", channel, "--since", video_ids[4])
    assert since.returncode == EXIT_OK
    assert [line.split("\t")[0] for line in since.stdout.splitlines()] == video_ids[:4]


def test_channel_pages_through_more_than_one_page(account: Account, live: LiveServer) -> None:
    channel, video_ids = live.info["lists"]["channel"]["channel"], live.info["lists"]["channel"]["videoIds"]
    run = cli(account, "channel", channel, "--limit", "55")
    assert [line.split("\t")[0] for line in run.stdout.splitlines()] == video_ids[:55]


def test_search_lists_the_results(account: Account, live: LiveServer) -> None:
    search = live.info["lists"]["search"]
    run = cli(account, "search", search["query"], "--limit", "4")
    assert run.returncode == EXIT_OK
    assert [line.split("\t")[0] for line in run.stdout.splitlines()] == search["videoIds"][:4]


def test_a_speech_job_prints_plain_progress_lines_without_a_terminal(account: Account, live: LiveServer) -> None:
    run = cli(account, "transcript", jfk(live), "--format", "srt")
    assert run.returncode == EXIT_OK, run.stderr
    lines = run.stderr.splitlines()
    assert lines, "no progress reported"
    assert all(line.startswith("job job_") for line in lines)
    assert lines[-1].endswith(": completed 100%")
    assert "\r" not in run.stderr
    assert re.match(r"1\n\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}\n", run.stdout)
    assert "what you can do for your country" in run.stdout


def test_a_speech_job_draws_a_progress_bar_on_a_terminal(account: Account, live: LiveServer, tmp_path: Path) -> None:
    # script(1) gives the command a terminal; stderr and stdout both reach its output, the text goes to a file.
    command = shlex.join([sys.executable, "-m", "verbatim", "transcript", jfk(live), "--out", "speech.txt"])
    run = subprocess.run(
        ["script", "-qfec", command, "/dev/null"],
        env=environment(account),
        capture_output=True,
        timeout=180,
        check=False,
        cwd=tmp_path,
    )
    # Read as bytes: text mode would turn the bar's carriage returns into newlines. The terminal turns each newline
    # into CR LF; the other carriage returns are the bar's.
    shown = run.stdout.decode()
    assert run.returncode == EXIT_OK, shown
    frames = shown.replace("\r\n", "\n").split("\r")
    assert len(frames) >= 3
    assert frames[1].startswith("[") and frames[1].endswith(" processing")
    assert frames[-1].startswith("[" + "#" * 30 + "] 100% job_")
    assert frames[-1].endswith(" completed\nwrote speech.txt\n")
    assert "job job_" not in shown
    assert "what you can do for your country" in (tmp_path / "speech.txt").read_text(encoding="utf-8")


SUBRIP = (
    "1\n00:00:00,000 --> 00:00:02,500\nAlright, so here we are\n\n"
    "2\n00:00:02,500 --> 00:00:05,000\nin front of the elephants\n\n"
)
WEBVTT = "WEBVTT\n\n00:00:00.000 --> 00:00:02.500\nAlright, so here we are\n\n"


@dataclass
class StandIn:
    """A loopback Verbatim answering ``/transcripts/video`` and ``/transcripts/languages`` in the contract's shapes,
    and keeping each request's path, key and body.
    """

    base_url: str = ""
    requests: List[Tuple[str, str, Dict[str, Any]]] = field(default_factory=list)


def transcript_answer(request: Dict[str, Any]) -> Tuple[int, Dict[str, Any]]:
    data: Dict[str, Any] = {
        "kind": "transcript",
        "video_id": "jNQXAC9IVRw",
        "url": "https://www.youtube.com/watch?v=jNQXAC9IVRw",
        "platform": "youtube",
        "title": "Me at the zoo",
        "channel": "jawed",
        "duration": 19.0,
        "language": request.get("translate_to", "en"),
        "source": "captions",
        "caption_kind": "manual",
        "thumbnail_url": None,
        "speakers": None,
        "speech_engine": None,
    }
    if "translate_to" in request:
        data["source_language"] = "en"
    form = request.get("format", "segments")
    if form == "text":
        data["text"] = "Alright, so here we are in front of the elephants"
    elif form in ("srt", "vtt"):
        data |= {"format": form, "subtitles": SUBRIP if form == "srt" else WEBVTT}
    else:
        data["segments"] = [{"text": "Alright, so here we are", "start": 0.0, "duration": 2.5}]
    usage = {"credits_spent": 1, "balance": 99, "bytes": 50}
    return 200, {"ok": True, "request_id": "req_01JD7XH0V6Q8M2F4A9C3K5T7W1", "data": data, "usage": usage}


def languages_answer(request: Dict[str, Any]) -> Tuple[int, Dict[str, Any]]:
    targets = [{"language": "de", "name": "German"}, {"language": "fr", "name": "French"}]
    tracks = [
        {"language": "en", "name": "English", "kind": "manual", "translatable": True, "translation_targets": targets},
        {"language": "en", "name": None, "kind": "auto", "translatable": False, "translation_targets": []},
    ]
    data = {
        "kind": "caption_languages",
        "video_id": request["video"],
        "platform": "youtube",
        "languages": tracks if request["video"] != "uncaptioned" else [],
    }
    usage = {"credits_spent": 0, "balance": 100, "bytes": 0}
    return 200, {"ok": True, "request_id": "req_01JD7XH0V6Q8M2F4A9C3K5T7W2", "data": data, "usage": usage}


@pytest.fixture(scope="module")
def stand_in() -> Iterator[StandIn]:
    served = StandIn()
    answers = {"/api/v2/transcripts/video": transcript_answer, "/api/v2/transcripts/languages": languages_answer}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))))
            served.requests.append((self.path, self.headers.get("authorization", ""), body))
            status, answer = answers[self.path](body)
            content = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("x-request-id", answer["request_id"])
            self.send_header("content-length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    served.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield served
    server.shutdown()
    server.server_close()


STAND_IN_KEY = Account("acct_stand_in", "vb_live_" + "s" * 32, "", "")


def test_transcript_prints_the_text_or_the_subtitle_file_the_server_wrote(stand_in: StandIn) -> None:
    text = cli(STAND_IN_KEY, "transcript", "jNQXAC9IVRw", base_url=stand_in.base_url)
    assert (text.returncode, text.stdout) == (EXIT_OK, "Alright, so here we are in front of the elephants\n")
    srt = cli(STAND_IN_KEY, "transcript", "jNQXAC9IVRw", "--format", "srt", base_url=stand_in.base_url)
    assert (srt.returncode, srt.stdout) == (EXIT_OK, SUBRIP)
    vtt = cli(STAND_IN_KEY, "transcript", "jNQXAC9IVRw", "--format", "vtt", base_url=stand_in.base_url)
    assert (vtt.returncode, vtt.stdout) == (EXIT_OK, WEBVTT)
    assert [body for _, _, body in stand_in.requests[-3:]] == [
        {"video": "jNQXAC9IVRw", "format": "text"},
        {"video": "jNQXAC9IVRw", "format": "srt"},
        {"video": "jNQXAC9IVRw", "format": "vtt"},
    ]
    assert stand_in.requests[-1][1] == f"Bearer {STAND_IN_KEY.api_key}"


def test_transcript_sends_translate_to_language_and_mode_and_writes_out(stand_in: StandIn, tmp_path: Path) -> None:
    out = tmp_path / "de.srt"
    run = cli(
        STAND_IN_KEY,
        "transcript",
        "https://youtu.be/jNQXAC9IVRw",
        *("--format", "srt", "--translate-to", "de", "--language", "en", "--mode", "captions", "--out", str(out)),
        base_url=stand_in.base_url,
    )
    assert (run.returncode, run.stdout) == (EXIT_OK, "")
    assert out.read_text(encoding="utf-8") == SUBRIP
    assert stand_in.requests[-1][2] == {
        "video": "https://youtu.be/jNQXAC9IVRw",
        "format": "srt",
        "translate_to": "de",
        "language": "en",
        "mode": "captions",
    }
    json_run = cli(
        STAND_IN_KEY,
        "transcript",
        "jNQXAC9IVRw",
        "--format",
        "json",
        "--translate-to",
        "de",
        base_url=stand_in.base_url,
    )
    answer = json.loads(json_run.stdout)
    assert (answer["data"]["language"], answer["data"]["source_language"]) == ("de", "en")
    assert stand_in.requests[-1][2] == {"video": "jNQXAC9IVRw", "translate_to": "de"}


def test_languages_prints_one_line_per_track(stand_in: StandIn) -> None:
    run = cli(STAND_IN_KEY, "languages", "https://youtu.be/jNQXAC9IVRw", base_url=stand_in.base_url)
    assert run.returncode == EXIT_OK
    assert run.stdout.splitlines() == [
        "en\tmanual\tEnglish\ttranslatable into 2 languages",
        "en\tauto\t\tnot translatable",
    ]
    path, _, body = stand_in.requests[-1]
    assert (path, body) == ("/api/v2/transcripts/languages", {"video": "https://youtu.be/jNQXAC9IVRw"})
    none = cli(STAND_IN_KEY, "languages", "uncaptioned", base_url=stand_in.base_url)
    assert (none.returncode, none.stdout, none.stderr) == (EXIT_OK, "", "uncaptioned has no caption tracks\n")
