"""wait_for_job's polling, failure and timeout, against respx."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Dict, List

import httpx
import pytest
import respx

from verbatim import ContentError, JobProgress, JobTimeoutError, Verbatim

BASE = "http://verbatim.test/api/v2"
JOB = "job_01JD7XJ2Q4ZB8N6R0S2T4V6X8Y"
POLL = f"{BASE}/transcripts/jobs/{JOB}"


def state(status: str, **fields: Any) -> Dict[str, Any]:
    return {
        "ok": status != "failed",
        "request_id": "req_01JD7XH0V6Q8M2F4A9C3K5T7W1",
        "status": status,
        "job_id": JOB,
        "data": None,
        **fields,
    }


def processing(progress: float, limit: int = 60) -> httpx.Response:
    headers = {"x-ratelimit-limit": str(limit), "x-ratelimit-remaining": "5", "x-ratelimit-reset": "1795000000"}
    return httpx.Response(200, json=state("processing", progress=progress), headers=headers)


def finished_transcript(**fields: Any) -> Dict[str, Any]:
    """A completed job's transcript of one spoken "hello" in a media file; `fields` add or replace."""
    return {
        "kind": "transcript",
        "video_id": "x",
        "url": None,
        "platform": "file",
        "title": None,
        "channel": None,
        "duration": 1.0,
        "language": "en",
        "source": "audio",
        "caption_kind": None,
        "thumbnail_url": None,
        "speakers": None,
        "speech_engine": None,
        "text": "hello",
        **fields,
    }


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> List[float]:
    """The waits between polls, recorded instead of slept, on a clock that only they advance."""
    waited: List[float] = []
    monkeypatch.setattr("verbatim.generated.client.time.sleep", waited.append)
    monkeypatch.setattr("verbatim.generated.client.time.monotonic", lambda: sum(waited))
    return waited


@pytest.fixture
def client() -> Iterator[Verbatim]:
    with Verbatim(api_key="vb_live_" + "a" * 32, base_url=BASE) as verbatim:
        yield verbatim


@respx.mock
def test_a_failed_job_raises_its_error_as_the_family_of_its_code(client: Verbatim, sleeps: List[float]) -> None:
    error = {
        "code": "no_speech",
        "number": 4105,
        "message": "The media has no speech.",
        "docs": "http://x/docs/errors/no_speech",
    }
    respx.get(POLL).mock(side_effect=[processing(0.5), httpx.Response(200, json=state("failed", error=error))])
    reports: List[JobProgress] = []
    with pytest.raises(ContentError) as raised:
        client.transcripts.wait_for_job(JOB, poll_interval=2.0, on_progress=reports.append)
    assert (raised.value.code, raised.value.number, raised.value.status) == ("no_speech", 4105, 422)
    assert reports == [JobProgress(JOB, "processing", 0.5), JobProgress(JOB, "failed", None)]
    assert sleeps == [2.0]


@respx.mock
def test_waits_grow_by_half_until_the_timeout_would_pass(client: Verbatim, sleeps: List[float]) -> None:
    route = respx.get(POLL).mock(side_effect=[processing(0.1), processing(0.2), processing(0.3)])
    with pytest.raises(JobTimeoutError) as raised:
        client.transcripts.wait_for_job(JOB, poll_interval=1.0, timeout=4.0)
    assert (raised.value.job_id, raised.value.waited_seconds) == (JOB, 2.5)
    assert sleeps == [1.0, 1.5]
    assert route.call_count == 3


@respx.mock
def test_polls_never_come_faster_than_the_allowance_the_server_reports(client: Verbatim, sleeps: List[float]) -> None:
    completed = state("completed", data=None, usage={"credits_spent": 1, "balance": 9, "bytes": 10})
    completed["data"] = finished_transcript(segments=[])
    respx.get(POLL).mock(side_effect=[processing(0.5, limit=10), httpx.Response(200, json=completed)])
    done = client.transcripts.wait_for_job(JOB, poll_interval=1.0)
    assert done.data.text == "hello"
    # 10 polls a minute: one every 6 s, whatever the poll interval asked.
    assert sleeps == [6.0]


@respx.mock
def test_a_request_with_words_polls_its_job_for_them(client: Verbatim, sleeps: List[float]) -> None:
    accepted = {
        "ok": True,
        "request_id": "req_01JD7XH0V6Q8M2F4A9C3K5T7W1",
        "status": "processing",
        "job_id": JOB,
        "poll_url": f"/api/v2/transcripts/jobs/{JOB}",
        "data": {"kind": "transcript_job", "video_id": "x", "platform": "file"},
        "usage": {"credits_spent": 0, "balance": 10, "bytes": 0},
    }
    word = {"text": "hello", "start": 0.2, "duration": 0.8}
    segment = {"start": 0.0, "duration": 1.0, "text": "hello", "words": [word]}
    completed = state("completed", usage={"credits_spent": 1, "balance": 9, "bytes": 5})
    completed["data"] = finished_transcript(segments=[segment], word_timing="source")
    sent = respx.post(f"{BASE}/transcripts/video").mock(return_value=httpx.Response(202, json=accepted))
    polled = respx.get(POLL, params={"words": "true"}).mock(return_value=httpx.Response(200, json=completed))
    done = client.transcripts.video("https://media.example/x.mp3", words=True, wait=True)
    assert sent.calls.last.request.content == b'{"video":"https://media.example/x.mp3","words":true}'
    assert polled.call_count == 1
    assert done.data.word_timing == "source"
    [timed] = done.data.segments or []
    assert timed.words is not None and timed.words[0].start == 0.2
