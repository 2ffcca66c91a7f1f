"""Keyword arguments, a dict and a model send the same request, on the sync and the async client, captured by respx.

Every route answers 400 here: only the request each form sends is compared, so one refusal serves every operation.
mypy --strict checks the keyword forms below against the generated types, and the ``type: ignore`` comments of the
refused calls: under ``warn_unused_ignores`` they fail the type check if the types stop refusing those calls.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Iterator
from typing import Any, Callable, Dict, List, Tuple

import httpx
import pydantic
import pytest
import respx

from verbatim import AsyncVerbatim, RequestError, Verbatim
from verbatim.models import (
    BatchRequest,
    ChannelRequest,
    LanguagesRequest,
    LibrarySearchRequest,
    MonitorCreate,
    MonitorUpdate,
    PlaylistRequest,
    SearchRequest,
    TranscriptRequest,
)
from verbatim.types import TranscriptRequestOptions

KEY = "vb_live_" + "b" * 32
ORIGIN = "http://verbatim.test"

REFUSAL = {
    "ok": False,
    "request_id": "req_01JD7XH0V6Q8M2F4A9C3K5T7W1",
    "error": {"code": "invalid_request", "number": 1001, "message": "refused", "docs": f"{ORIGIN}/docs/errors/x"},
}

Sent = Tuple[str, str, Dict[str, Any]]
"""A request as sent: its method, its path with the query, and its JSON body (empty for a GET)."""


def sent_by(router: respx.MockRouter) -> List[Sent]:
    return [
        (
            call.request.method,
            call.request.url.raw_path.decode(),
            httpx.Response(200, content=call.request.content).json() if call.request.content else {},
        )
        for call in router.calls
    ]


@pytest.fixture
def router() -> Iterator[respx.MockRouter]:
    with respx.mock(base_url=f"{ORIGIN}/api/v2", assert_all_called=False) as mock:
        mock.route().mock(return_value=httpx.Response(400, json=REFUSAL))
        yield mock


TRANSCRIPT_OPTIONS: TranscriptRequestOptions = {
    "mode": "audio",
    "language": "en",
    "translate_to": "de",
    "format": "srt",
    "chunk_size": 500,
    "timestamps": True,
}
TRANSCRIPT = {"video": "jNQXAC9IVRw", **TRANSCRIPT_OPTIONS}
MONITOR = {"target": "@NASA", "webhook_url": "https://hooks.example.com/v", "interval_minutes": 60}

SyncForm = Callable[[Verbatim], object]

SYNC_FORMS: Dict[str, List[SyncForm]] = {
    "video": [
        lambda v: v.transcripts.video(
            "jNQXAC9IVRw", mode="audio", language="en", translate_to="de", format="srt", chunk_size=500, timestamps=True
        ),
        lambda v: v.transcripts.video(TRANSCRIPT),
        lambda v: v.transcripts.video(TranscriptRequest.model_validate(TRANSCRIPT)),
        lambda v: v.transcripts.video(video="jNQXAC9IVRw", **TRANSCRIPT_OPTIONS),
    ],
    "languages": [
        lambda v: v.transcripts.languages("https://youtu.be/jNQXAC9IVRw"),
        lambda v: v.transcripts.languages({"video": "https://youtu.be/jNQXAC9IVRw"}),
        lambda v: v.transcripts.languages(LanguagesRequest(video="https://youtu.be/jNQXAC9IVRw")),
    ],
    "batch": [
        lambda v: v.transcripts.batch(["jNQXAC9IVRw", "aBcDeFgHiJk"], translate_to="de", mode="captions"),
        lambda v: v.transcripts.batch(
            {"video_ids": ["jNQXAC9IVRw", "aBcDeFgHiJk"], "translate_to": "de", "mode": "captions"}
        ),
        lambda v: v.transcripts.batch(
            BatchRequest(video_ids=["jNQXAC9IVRw", "aBcDeFgHiJk"], translate_to="de", mode="captions")
        ),
    ],
    "channel": [
        lambda v: v.transcripts.channel("UCX6OQ3DkcsbYNE6H8uQQuVA", limit=25, since_video_id="jNQXAC9IVRw"),
        lambda v: v.transcripts.channel(
            {"channel": "UCX6OQ3DkcsbYNE6H8uQQuVA", "limit": 25, "since_video_id": "jNQXAC9IVRw"}
        ),
        lambda v: v.transcripts.channel(
            ChannelRequest(channel="UCX6OQ3DkcsbYNE6H8uQQuVA", limit=25, since_video_id="jNQXAC9IVRw")
        ),
        lambda v: next(
            iter(v.transcripts.iter_channel("UCX6OQ3DkcsbYNE6H8uQQuVA", limit=25, since_video_id="jNQXAC9IVRw"))
        ),
        lambda v: next(
            iter(
                v.transcripts.iter_channel(
                    {"channel": "UCX6OQ3DkcsbYNE6H8uQQuVA", "limit": 25, "since_video_id": "jNQXAC9IVRw"}
                )
            )
        ),
    ],
    "playlist": [
        lambda v: v.transcripts.playlist("PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI", limit=5, cursor="c1"),
        lambda v: v.transcripts.playlist(
            PlaylistRequest(playlist="PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI", limit=5, cursor="c1")
        ),
        lambda v: next(iter(v.transcripts.iter_playlist("PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI", limit=5, cursor="c1"))),
    ],
    "search": [
        lambda v: v.transcripts.search("me at the zoo", type="video", limit=10),
        lambda v: v.transcripts.search({"query": "me at the zoo", "type": "video", "limit": 10}),
        lambda v: v.transcripts.search(SearchRequest(query="me at the zoo", type="video", limit=10)),
        lambda v: next(iter(v.transcripts.iter_search("me at the zoo", type="video", limit=10))),
    ],
    "library_search": [
        lambda v: v.library.search_page('"ask not"', platform="youtube", limit=5),
        lambda v: v.library.search_page({"query": '"ask not"', "platform": "youtube", "limit": 5}),
        lambda v: v.library.search_page(LibrarySearchRequest(query='"ask not"', platform="youtube", limit=5)),
        lambda v: next(iter(v.library.search('"ask not"', platform="youtube", limit=5))),
    ],
    "library_get": [
        lambda v: v.library.get("youtube:jNQXAC9IVRw", format="vtt", chunk_size=200),
    ],
    "monitor_create": [
        lambda v: v.monitors.create("@NASA", webhook_url="https://hooks.example.com/v", interval_minutes=60),
        lambda v: v.monitors.create(MONITOR),
        lambda v: v.monitors.create(MonitorCreate.model_validate(MONITOR)),
    ],
    "monitor_update": [
        lambda v: v.monitors.update("mon_1", status="paused", webhook_url=None),
        lambda v: v.monitors.update("mon_1", {"status": "paused", "webhook_url": None}),
        lambda v: v.monitors.update("mon_1", MonitorUpdate(status="paused", webhook_url=None)),
    ],
}

AsyncForm = Callable[[AsyncVerbatim], Awaitable[object]]


async def first(items: AsyncIterator[Any]) -> object:
    return await items.__anext__()


ASYNC_FORMS: Dict[str, List[AsyncForm]] = {
    "video": [
        lambda v: v.transcripts.video(
            "jNQXAC9IVRw", mode="audio", language="en", translate_to="de", format="srt", chunk_size=500, timestamps=True
        ),
        lambda v: v.transcripts.video(TRANSCRIPT),
        lambda v: v.transcripts.video(TranscriptRequest.model_validate(TRANSCRIPT)),
    ],
    "languages": [
        lambda v: v.transcripts.languages("https://youtu.be/jNQXAC9IVRw"),
        lambda v: v.transcripts.languages({"video": "https://youtu.be/jNQXAC9IVRw"}),
    ],
    "batch": [
        lambda v: v.transcripts.batch(["jNQXAC9IVRw", "aBcDeFgHiJk"], translate_to="de", mode="captions"),
        lambda v: v.transcripts.batch(
            {"video_ids": ["jNQXAC9IVRw", "aBcDeFgHiJk"], "translate_to": "de", "mode": "captions"}
        ),
    ],
    "channel": [
        lambda v: v.transcripts.channel("UCX6OQ3DkcsbYNE6H8uQQuVA", limit=25, since_video_id="jNQXAC9IVRw"),
        lambda v: v.transcripts.channel(
            {"channel": "UCX6OQ3DkcsbYNE6H8uQQuVA", "limit": 25, "since_video_id": "jNQXAC9IVRw"}
        ),
        lambda v: first(
            v.transcripts.iter_channel("UCX6OQ3DkcsbYNE6H8uQQuVA", limit=25, since_video_id="jNQXAC9IVRw").__aiter__()
        ),
    ],
    "playlist": [
        lambda v: v.transcripts.playlist("PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI", limit=5, cursor="c1"),
        lambda v: first(
            v.transcripts.iter_playlist("PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI", limit=5, cursor="c1").__aiter__()
        ),
    ],
    "search": [
        lambda v: v.transcripts.search("me at the zoo", type="video", limit=10),
        lambda v: v.transcripts.search({"query": "me at the zoo", "type": "video", "limit": 10}),
        lambda v: first(v.transcripts.iter_search("me at the zoo", type="video", limit=10).__aiter__()),
    ],
    "library_search": [
        lambda v: v.library.search_page('"ask not"', platform="youtube", limit=5),
        lambda v: v.library.search_page({"query": '"ask not"', "platform": "youtube", "limit": 5}),
        lambda v: first(v.library.search('"ask not"', platform="youtube", limit=5).__aiter__()),
    ],
    "library_get": [
        lambda v: v.library.get("youtube:jNQXAC9IVRw", format="vtt", chunk_size=200),
    ],
    "monitor_create": [
        lambda v: v.monitors.create("@NASA", webhook_url="https://hooks.example.com/v", interval_minutes=60),
        lambda v: v.monitors.create(MONITOR),
    ],
    "monitor_update": [
        lambda v: v.monitors.update("mon_1", status="paused", webhook_url=None),
        lambda v: v.monitors.update("mon_1", {"status": "paused", "webhook_url": None}),
    ],
}

EXPECTED: Dict[str, Sent] = {
    "video": ("POST", "/api/v2/transcripts/video", TRANSCRIPT),
    "languages": ("POST", "/api/v2/transcripts/languages", {"video": "https://youtu.be/jNQXAC9IVRw"}),
    "batch": (
        "POST",
        "/api/v2/transcripts/batch",
        {"video_ids": ["jNQXAC9IVRw", "aBcDeFgHiJk"], "translate_to": "de", "mode": "captions"},
    ),
    "channel": (
        "POST",
        "/api/v2/transcripts/channel",
        {"channel": "UCX6OQ3DkcsbYNE6H8uQQuVA", "limit": 25, "since_video_id": "jNQXAC9IVRw"},
    ),
    "playlist": (
        "POST",
        "/api/v2/transcripts/playlist",
        {"playlist": "PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI", "limit": 5, "cursor": "c1"},
    ),
    "search": ("POST", "/api/v2/transcripts/search", {"query": "me at the zoo", "type": "video", "limit": 10}),
    "library_search": ("POST", "/api/v2/library/search", {"query": '"ask not"', "platform": "youtube", "limit": 5}),
    "library_get": ("GET", "/api/v2/library/youtube%3AjNQXAC9IVRw?format=vtt&chunk_size=200", {}),
    "monitor_create": ("POST", "/api/v2/monitors", MONITOR),
    "monitor_update": ("PATCH", "/api/v2/monitors/mon_1", {"status": "paused", "webhook_url": None}),
}


@pytest.mark.parametrize("operation", sorted(SYNC_FORMS))
def test_every_form_of_a_sync_call_sends_the_same_request(router: respx.MockRouter, operation: str) -> None:
    with Verbatim(api_key=KEY, base_url=ORIGIN, max_retries=0) as verbatim:
        for form in SYNC_FORMS[operation]:
            with pytest.raises(RequestError):
                form(verbatim)
    assert sent_by(router) == [EXPECTED[operation]] * len(SYNC_FORMS[operation])


@pytest.mark.parametrize("operation", sorted(ASYNC_FORMS))
async def test_every_form_of_an_async_call_sends_the_same_request(router: respx.MockRouter, operation: str) -> None:
    async with AsyncVerbatim(api_key=KEY, base_url=ORIGIN, max_retries=0) as verbatim:
        for form in ASYNC_FORMS[operation]:
            with pytest.raises(RequestError):
                await form(verbatim)
    assert sent_by(router) == [EXPECTED[operation]] * len(ASYNC_FORMS[operation])


def test_a_whole_request_with_keyword_arguments_beside_it_is_refused_before_sending(router: respx.MockRouter) -> None:
    with Verbatim(api_key=KEY, base_url=ORIGIN) as verbatim:
        with pytest.raises(TypeError, match="mode"):
            verbatim.transcripts.video({"video": "jNQXAC9IVRw"}, mode="audio")
        with pytest.raises(TypeError, match="limit"):
            verbatim.transcripts.iter_channel(ChannelRequest(channel="UC"), limit=5)
    assert sent_by(router) == []


def test_keyword_arguments_the_contract_refuses_fail_the_type_check_and_validation_before_sending(
    router: respx.MockRouter,
) -> None:
    with Verbatim(api_key=KEY, base_url=ORIGIN) as verbatim:
        with pytest.raises(pydantic.ValidationError, match="mode"):
            verbatim.transcripts.video("jNQXAC9IVRw", mode="subtitles")  # type: ignore[call-overload]
        with pytest.raises(pydantic.ValidationError, match="chunk_size"):
            verbatim.transcripts.video("jNQXAC9IVRw", chunk_size="large")  # type: ignore[call-overload]
        with pytest.raises(pydantic.ValidationError, match="limit"):
            verbatim.transcripts.channel("UC", limit="all")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="since"):
            verbatim.transcripts.search("zoo", since="yesterday")  # type: ignore[call-arg]
    assert sent_by(router) == []
