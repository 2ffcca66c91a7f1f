"""``python -m verbatim`` run as a process: every command, stdout, ``--out``, the exit codes and the progress display.

The session's live server (tests/conftest.py) answers all of it: the transcript as JSON, as text and as the SubRip
and WebVTT it writes out, YouTube's German translation of the captioned video's English track, the caption tracks
``languages`` lists, the listings, the errors and the speech job.
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
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

from verbatim import Verbatim, to_srt
from verbatim._cli import EXIT_ACCOUNT, EXIT_CONTENT, EXIT_INPUT, EXIT_OK, EXIT_REQUEST
from verbatim.models import Segment, TranscriptEnvelope

from .conftest import Account, LiveServer, new_account
from .test_formats import segment_cues, webvtt_cues

PACKAGE_DIR = Path(__file__).resolve().parent.parent


def cli(account: Optional[Account], *args: str, cwd: Optional[Path] = None) -> subprocess.CompletedProcess[str]:
    """``python -m verbatim ARGS`` with the account's key and server in its environment, stdout and stderr piped."""
    return subprocess.run(
        [sys.executable, "-m", "verbatim", *args],
        env=environment(account),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        cwd=cwd,
    )


def environment(account: Optional[Account]) -> Dict[str, str]:
    env = {name: value for name, value in os.environ.items() if not name.startswith("VERBATIM_")}
    if account is not None:
        env["VERBATIM_API_KEY"] = account.api_key
        env["VERBATIM_BASE_URL"] = account.base_url
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


def captioned_segments(client: Verbatim, live: LiveServer) -> List[Segment]:
    """The segments of the captioned video's English track, as the SDK answers them."""
    answer = client.transcripts.video(live.info["videos"]["captioned"])
    assert isinstance(answer, TranscriptEnvelope) and answer.data.segments
    return answer.data.segments


def test_transcript_prints_the_text_by_default(account: Account, client: Verbatim, live: LiveServer) -> None:
    run = cli(account, "transcript", live.info["videos"]["captioned"])
    assert (run.returncode, run.stderr) == (EXIT_OK, "")
    assert run.stdout == " ".join(segment.text for segment in captioned_segments(client, live)) + "\n"


def test_transcript_srt_prints_the_subrip_of_the_segments(account: Account, client: Verbatim, live: LiveServer) -> None:
    run = cli(account, "transcript", live.info["videos"]["captioned"], "--format", "srt")
    assert (run.returncode, run.stderr) == (EXIT_OK, "")
    # No SubRip parser is at hand for Python: the server's document is held to the one the SDK's own writer makes of
    # the same segments. The server ends its last cue with a blank line, the SDK's writer does not.
    assert run.stdout.rstrip("\n") == to_srt(captioned_segments(client, live)).rstrip("\n")


def test_transcript_vtt_prints_webvtt_that_reads_back_as_the_segments(
    account: Account, client: Verbatim, live: LiveServer
) -> None:
    run = cli(account, "transcript", live.info["videos"]["captioned"], "--format", "vtt")
    assert (run.returncode, run.stderr) == (EXIT_OK, "")
    assert webvtt_cues(run.stdout) == segment_cues(captioned_segments(client, live))


def test_translate_to_prints_youtubes_translation_of_the_english_track(
    account: Account, client: Verbatim, live: LiveServer, tmp_path: Path
) -> None:
    video = live.info["videos"]["captioned"]
    run = cli(account, "transcript", video, "--translate-to", "de", "--format", "json")
    assert (run.returncode, run.stderr) == (EXIT_OK, "")
    translated = json.loads(run.stdout)["data"]
    assert (translated["language"], translated["source_language"]) == ("de", "en")
    german = [Segment.model_validate(segment) for segment in translated["segments"]]
    assert german[0].text == "Microsofts Surface Go ist das kleinste"
    # YouTube translates each cue in place: the times are the English track's.
    english = captioned_segments(client, live)
    assert [(s.start, s.duration) for s in german] == [(s.start, s.duration) for s in english]

    written = cli(
        account, "transcript", video, "--translate-to", "de", "--format", "srt", "--out", "de.srt", cwd=tmp_path
    )
    assert (written.returncode, written.stdout, written.stderr) == (EXIT_OK, "", "wrote de.srt\n")
    assert (tmp_path / "de.srt").read_text(encoding="utf-8").rstrip("\n") == to_srt(german).rstrip("\n")


def test_a_translation_youtube_does_not_offer_exits_4_with_translation_unavailable(
    account: Account, live: LiveServer
) -> None:
    run = cli(account, "transcript", live.info["videos"]["captioned"], "--translate-to", "sw")
    assert run.returncode == EXIT_CONTENT == 4
    assert run.stdout == ""
    assert run.stderr.startswith("verbatim: translation_unavailable (4107): ")
    assert " into sw; " in run.stderr
    assert "(request req_" in run.stderr


def test_languages_prints_one_line_per_caption_track(account: Account, client: Verbatim, live: LiveServer) -> None:
    video = live.info["videos"]["captioned"]
    run = cli(account, "languages", f"https://youtu.be/{video}")
    assert (run.returncode, run.stderr) == (EXIT_OK, "")
    # The recorded player response offers 18 translation languages; no track is offered its own (Chinese, written in
    # Simplified script, is offered Traditional), and Czech is not among them. The lines are the Node command's.
    assert run.stdout.splitlines() == [
        "language\tkind\tname\ttranslations",
        "zh\tmanual\tChinese\t18 translation targets",
        "cs\tmanual\tCzech\t18 translation targets",
        "en\tmanual\tEnglish\t17 translation targets",
        "de\tmanual\tGerman\t17 translation targets",
        "hi\tmanual\tHindi\t17 translation targets",
        "ja\tmanual\tJapanese\t17 translation targets",
        "ko\tmanual\tKorean\t17 translation targets",
        "es\tmanual\tSpanish\t17 translation targets",
        "en\tauto\tEnglish (auto-generated)\t17 translation targets",
    ]
    as_json = cli(account, "languages", video, "--json")
    answer = client.transcripts.languages(video).data
    assert json.loads(as_json.stdout) == answer.model_dump(mode="json", by_alias=True, exclude_unset=True)


def test_metadata_prints_field_lines_then_the_description(account: Account, client: Verbatim, live: LiveServer) -> None:
    video = live.info["videos"]["captioned"]
    run = cli(account, "metadata", f"https://youtu.be/{video}")
    assert (run.returncode, run.stderr) == (EXIT_OK, "")
    lines = run.stdout.splitlines()
    # The Node command's lines.
    assert lines[:5] == [
        "platform\tyoutube",
        f"id\t{video}",
        f"url\thttps://www.youtube.com/watch?v={video}",
        "title\tSurface Go Review - It\u2019s Awesome",
        "channel\tDave2D",
    ]
    assert "duration\t5:16" in lines and "views\t1856109" in lines
    assert "\n\nDave2D review of the Microsoft Surface Go." in run.stdout
    as_json = cli(account, "metadata", video, "--json")
    answer = client.videos.metadata(video).data
    assert json.loads(as_json.stdout) == answer.model_dump(mode="json", by_alias=True, exclude_unset=True)
    private = cli(account, "metadata", live.info["videos"]["private"])
    assert private.returncode == EXIT_CONTENT and "private (4001)" in private.stderr


def test_languages_of_a_media_file_prints_nothing_and_says_why_on_stderr(
    account: Account, client: Verbatim, live: LiveServer
) -> None:
    media = live.info["media"]["jfk"]
    run = cli(account, "languages", media)
    tracks = client.transcripts.languages(media).data
    assert (tracks.platform, tracks.languages) == ("file", [])
    assert (run.returncode, run.stdout) == (EXIT_OK, "")
    assert run.stderr == (
        f"{tracks.video_id} has no caption tracks; speech recognition (--mode audio) would transcribe it\n"
    )


def test_chunk_size_prints_the_servers_chunks_one_json_object_a_line(
    account: Account, client: Verbatim, live: LiveServer
) -> None:
    video = live.info["videos"]["captioned"]
    run = cli(account, "transcript", video, "--chunk-size", "100")
    assert (run.returncode, run.stderr) == (EXIT_OK, "")
    printed = [json.loads(line) for line in run.stdout.splitlines()]
    chunked = client.transcripts.video(video, chunk_size=100)
    text = client.transcripts.video(video, format="text")
    assert isinstance(chunked, TranscriptEnvelope) and isinstance(text, TranscriptEnvelope)
    assert chunked.data.chunks is not None and len(chunked.data.chunks) > 1
    assert printed == [chunk.model_dump(mode="json", exclude_unset=True) for chunk in chunked.data.chunks]
    assert " ".join(chunk["text"] for chunk in printed) == text.data.text


def test_chunk_size_of_a_speech_job_comes_from_the_library(account: Account, live: LiveServer) -> None:
    run = cli(account, "transcript", jfk(live), "--chunk-size", "100")
    assert run.returncode == EXIT_OK, run.stderr
    chunks = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(chunks) > 1
    assert all(len(chunk["text"]) <= 100 for chunk in chunks)
    assert "what you can do for your country" in " ".join(chunk["text"] for chunk in chunks)
    assert cli(account, "transcript", jfk(live), "--chunk-size", "99").returncode == EXIT_REQUEST


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


def test_search_elsewhere_than_youtube_exits_with_the_input_family(account: Account, live: LiveServer) -> None:
    run = cli(account, "search", live.info["lists"]["search"]["query"], "--platform", "tiktok")
    assert (run.returncode, run.stdout) == (EXIT_INPUT, "")
    assert "unsupported_platform (3001)" in run.stderr


def test_search_refuses_a_platform_the_contract_does_not_list(account: Account) -> None:
    run = cli(account, "search", "speech", "--platform", "vimeo")
    assert (run.returncode, run.stdout) == (EXIT_REQUEST, "")
    assert "--platform" in run.stderr


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


def test_words_prints_webvtt_with_a_cue_timestamp_before_each_timed_word(account: Account, live: LiveServer) -> None:
    run = cli(account, "transcript", jfk(live), "--format", "vtt", "--words")
    assert run.returncode == EXIT_OK, run.stderr
    assert run.stdout.startswith("WEBVTT\n\n")
    assert re.search(r"<\d\d:\d\d:\d\d\.\d{3}>country", run.stdout), run.stdout


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


# A transcript stored before the server removed control characters: OSC 52 writes the clipboard, OSC 0 the window
# title, CSI 2J clears the screen, OSC 8 disguises a link; then a C1 CSI, BEL, DEL and a carriage return.
HOSTILE = (
    "ask not\x1b]52;c;aGk=\x07 what\x1b]0;owned\x07 your\x1b[2J country\x1b]8;;https://evil.example/\x1b\\can do"
    "\x1b]8;;\x1b\\ for\x9b2J you\x7f\r"
)
SHOWN = (
    "ask not\ufffd]52;c;aGk=\ufffd what\ufffd]0;owned\ufffd your\ufffd[2J country\ufffd]8;;https://evil.example/"
    "\ufffd\\can do\ufffd]8;;\ufffd\\ for\ufffd2J you\ufffd\ufffd"
)
# A control character other than the line feed: what nothing printed may hold.
CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")
HOSTILE_TRANSCRIPT: Dict[str, Any] = {
    "kind": "transcript",
    "video_id": "GJLlxj_dtq8",
    "url": "https://www.youtube.com/watch?v=GJLlxj_dtq8",
    "platform": "youtube",
    "title": "Surface Go",
    "channel": "A channel",
    "duration": 11.0,
    "language": "en",
    "source_language": None,
    "source": "captions",
    "caption_kind": "manual",
    "thumbnail_url": None,
    "speakers": None,
    "speech_engine": None,
}


@contextmanager
def stand_in(status: int, body: Dict[str, Any]) -> Iterator[Account]:
    """A loopback server that answers every request with this status and JSON body, as a server holding a transcript
    stored before the fix would; the account points the command line at it."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", "0")))
            payload = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base_url = f"http://127.0.0.1:{server.server_address[1]}"
        yield Account(account_id="acc_standin", api_key="vb_live_standin", webhook_secret="", base_url=base_url)
    finally:
        server.shutdown()
        server.server_close()


def success(data: Dict[str, Any]) -> Dict[str, Any]:
    usage = {"credits_spent": 1, "balance": 9, "bytes": 28}
    return {"ok": True, "request_id": "req_standin", "data": data, "usage": usage}


def test_transcript_prints_each_control_character_of_the_text_as_a_placeholder() -> None:
    with stand_in(200, success({**HOSTILE_TRANSCRIPT, "text": HOSTILE})) as account:
        run = cli(account, "transcript", "GJLlxj_dtq8")
    assert (run.returncode, run.stdout, run.stderr) == (EXIT_OK, SHOWN + "\n", "")


def test_transcript_shows_a_terminal_no_control_character(tmp_path: Path) -> None:
    with stand_in(200, success({**HOSTILE_TRANSCRIPT, "text": HOSTILE})) as account:
        command = shlex.join([sys.executable, "-m", "verbatim", "transcript", "GJLlxj_dtq8"])
        run = subprocess.run(
            ["script", "-qfec", command, "/dev/null"],
            env=environment(account),
            capture_output=True,
            timeout=180,
            check=False,
            cwd=tmp_path,
        )
    # The terminal ends the line with CR LF; nothing else it shows is a control character.
    assert (run.returncode, run.stdout.decode()) == (EXIT_OK, SHOWN + "\r\n")


def test_transcript_srt_prints_the_servers_subtitles_with_placeholders() -> None:
    subtitles = f"1\n00:00:00,000 --> 00:00:11,000\n{HOSTILE}\n\n"
    with stand_in(200, success({**HOSTILE_TRANSCRIPT, "format": "srt", "subtitles": subtitles})) as account:
        run = cli(account, "transcript", "GJLlxj_dtq8", "--format", "srt")
    assert (run.returncode, run.stdout) == (EXIT_OK, f"1\n00:00:00,000 --> 00:00:11,000\n{SHOWN}\n\n")


def test_transcript_json_escapes_them_and_parses_to_the_servers_data() -> None:
    data = {**HOSTILE_TRANSCRIPT, "segments": [{"start": 0.0, "duration": 11.0, "text": HOSTILE}]}
    with stand_in(200, success(data)) as account:
        run = cli(account, "transcript", "GJLlxj_dtq8", "--format", "json")
    assert run.returncode == EXIT_OK, run.stderr
    assert not CONTROL.search(run.stdout), run.stdout
    assert json.loads(run.stdout)["data"] == data


def test_an_error_message_prints_them_as_placeholders() -> None:
    error = {"code": "invalid_input", "number": 3005, "message": HOSTILE, "docs": "http://127.0.0.1/docs/errors/x"}
    with stand_in(422, {"ok": False, "request_id": "req_failed", "error": error}) as account:
        run = cli(account, "transcript", "GJLlxj_dtq8")
    assert run.returncode == EXIT_INPUT
    assert run.stderr == f"verbatim: invalid_input (3005): {SHOWN}\n"
