"""Live sessions against the session's live server: a live HLS playlist of jfk.wav on loopback, read to its end by
the sync and the async client's session handles, and by ``python -m verbatim transcript <link> --live``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from typing import List

from verbatim import AsyncVerbatim, Verbatim
from verbatim.generated.models import LiveEndedEvent, LiveSegmentEvent, LiveStartedEvent

from .conftest import LiveServer, new_account

# The session joins at the live edge, and on a loaded machine the recognizer may add a word after the
# stream's last: the last sentence is looked for among the words heard, not at their end.
SPOKEN = "what you can do for your country"


def test_the_sync_handle_reads_every_event_once_to_live_ended(live: LiveServer) -> None:
    account = new_account(live, server="live")
    url = live.command(command="live_playlist")["url"]
    with Verbatim(api_key=account.api_key, base_url=account.base_url) as client:
        session = client.live.start(url)
        events = list(session.events())
        assert isinstance(events[0], LiveStartedEvent)
        assert isinstance(events[-1], LiveEndedEvent) and events[-1].reason == "stream_ended"
        seqs = [event.seq for event in events if hasattr(event, "seq")]
        assert seqs == list(range(1, len(seqs) + 1))
        assert session.last_event_id == seqs[-1]
        spoken = [event.text for event in events if isinstance(event, LiveSegmentEvent)]
        assert SPOKEN in " ".join(spoken)
        stored = client.live.get(session.id, limit=500).data
        assert [segment.text for segment in stored.segments] == spoken
        assert stored.status == "ended" and stored.credits_spent == 1


async def test_the_async_handle_resumes_after_an_event_it_was_given(live: LiveServer) -> None:
    account = new_account(live, server="live")
    url = live.command(command="live_playlist")["url"]
    async with AsyncVerbatim(api_key=account.api_key, base_url=account.base_url) as client:
        session = await client.live.start(url)
        first: List[int] = []
        async for event in session.events():
            seq = getattr(event, "seq", None)
            if isinstance(seq, int):
                first.append(seq)
                break
        rest = [event async for event in client.live.events(session.id, last_event_id=first[0])]
        seqs = first + [event.seq for event in rest if hasattr(event, "seq")]
        assert seqs == list(range(1, len(seqs) + 1))
        assert isinstance(rest[-1], LiveEndedEvent)


def test_the_command_line_prints_the_words_as_they_are_heard(live: LiveServer) -> None:
    account = new_account(live, server="live")
    url = live.command(command="live_playlist")["url"]
    environment = {**os.environ, "VERBATIM_API_KEY": account.api_key, "VERBATIM_BASE_URL": account.base_url}
    run = subprocess.run(
        [sys.executable, "-m", "verbatim", "transcript", url, "--live"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert SPOKEN in " ".join(run.stdout.split())
    assert re.search(r"ended \(stream_ended\): [\d.]+ s, 1 credit\n$", run.stderr), run.stderr


def test_the_command_line_refuses_subtitles_of_a_live_stream(live: LiveServer) -> None:
    account = new_account(live, server="live")
    environment = {**os.environ, "VERBATIM_API_KEY": account.api_key, "VERBATIM_BASE_URL": account.base_url}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "verbatim",
            "transcript",
            "https://radio.example.org/live.m3u8",
            "--live",
            "--format",
            "srt",
        ],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 1
    assert "--live prints text or json" in run.stderr
