"""The asynchronous client, the same as the synchronous one with ``await``."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping
from types import TracebackType
from typing import AsyncIterator, Literal, Optional, Type, TypeVar, Union, overload

import httpx
from typing_extensions import Unpack

from . import _calls as calls
from ._exceptions import APIConnectionError, APIError, APITimeoutError, JobTimeoutError
from ._jobs import (
    DEFAULT_POLL_INTERVAL,
    DEFAULT_WAIT_TIMEOUT,
    JobRef,
    ProgressCallback,
    WaitOptions,
    allowance_spacing,
    failure_of,
    job_id_of,
    next_interval,
    progress_of,
)
from ._live import FINAL_TYPES, FIRST_RECONNECT_DELAY, EventStreamReader, next_delay, parse_event, resume_headers
from ._pagination import (
    AsyncPaginator,
    events_of,
    library_cursor_of,
    library_entries_of,
    library_hits_of,
    next_cursor_of,
    next_event_cursor_of,
    rows_of,
    with_cursor,
)
from ._transport import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    Settings,
    answer_of,
    backoff_seconds,
    build_request,
    error_of,
    retry_after_seconds,
    retry_delay,
    settings_from,
)
from .generated.models import (
    BatchResultEnvelope,
    CaptionLanguagesEnvelope,
    ChannelRequest,
    CreatedMonitorEnvelope,
    DeepHealthEnvelope,
    HealthEnvelope,
    JobAccepted,
    JobCompleted,
    JobFailed,
    LibraryEntry,
    LibraryHit,
    LibraryPageEnvelope,
    LibrarySearchPageEnvelope,
    LibrarySearchRequest,
    LibraryTranscriptEnvelope,
    ListRow,
    LiveEvent,
    LiveSessionDetailEnvelope,
    LiveSessionEnvelope,
    LiveSessionListEnvelope,
    MeEnvelope,
    MonitorCheckEnvelope,
    MonitorDeletedEnvelope,
    MonitorEnvelope,
    MonitorEvent,
    MonitorEventListEnvelope,
    MonitorListEnvelope,
    PlaylistRequest,
    SearchRequest,
    TranscriptEnvelope,
    UsageReportEnvelope,
    VideoMetadataEnvelope,
    VideoPageEnvelope,
)
from .generated.requests import (
    BatchRequestOptions,
    ChannelRequestOptions,
    GetLibraryTranscriptQuery,
    GetLiveSessionQuery,
    LibrarySearchRequestOptions,
    ListLiveSessionsQuery,
    LiveCreateOptions,
    MonitorCreateOptions,
    MonitorUpdateOptions,
    PlaylistRequestOptions,
    SearchRequestOptions,
    TranscriptRequestOptions,
)

Answer = TypeVar("Answer")


class AsyncVerbatim:
    """A client of the Verbatim v2 API.

    ``Verbatim()`` reads ``VERBATIM_API_KEY`` and ``VERBATIM_BASE_URL``. Use it as a context
    manager, or call ``close()``, to release its connections.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        *,
        default_headers: Optional[Mapping[str, str]] = None,
        http_client: Optional[httpx.AsyncClient] = None,
    ) -> None:
        self._settings: Settings = settings_from(api_key, base_url, timeout, max_retries, default_headers, os.environ)
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient()
        self.transcripts = AsyncTranscripts(self)
        """Transcripts, batches, lists and speech recognition jobs."""
        self.monitors = AsyncMonitors(self)
        """Monitors of YouTube channels and their events."""
        self.library = AsyncLibrary(self)
        """Every transcript the account has fetched, listed and searched."""
        self.live = AsyncLive(self)
        """Live streams transcribed as they play, and their events."""
        self.videos = AsyncVideos(self)
        """What sources say about items, without their words: title, description, chapters, counts."""

    @property
    def base_url(self) -> str:
        """The server's v2 address."""
        return self._settings.base_url

    def with_options(self, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> AsyncVerbatim:
        """A client sharing this one's connections with another timeout or retry count."""
        return AsyncVerbatim(
            api_key=self._settings.api_key,
            base_url=self._settings.base_url,
            timeout=self._settings.timeout if timeout is None else timeout,
            max_retries=self._settings.max_retries if max_retries is None else max_retries,
            default_headers=self._settings.default_headers,
            http_client=self._http,
        )

    async def me(self) -> MeEnvelope:
        """The account behind the key: plan, credits and request allowance. A poll: it uses the polling allowance."""
        return await self._send(calls.me())

    async def usage(self, *, from_: Optional[str] = None, to: Optional[str] = None) -> UsageReportEnvelope:
        """Credit usage per day and per operation, between ``from_`` and ``to`` (UTC dates, inclusive)."""
        return await self._send(calls.usage(from_, to))

    async def health(self) -> HealthEnvelope:
        """Liveness; needs no key."""
        return await self._send(calls.health())

    async def deep_health(self) -> DeepHealthEnvelope:
        """The database, the queue and the speech engine."""
        return await self._send(calls.deep_health())

    async def close(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncVerbatim:
        return self

    async def __aexit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        await self.close()

    async def _send(self, call: calls.Call[Answer], idempotency_key: Optional[str] = None) -> Answer:
        """Sends a call, retrying 429, 5xx and connection failures with full-jitter backoff or after a ``Retry-After``
        of at most a minute, and a 409 only after its ``Retry-After``.
        """
        request = build_request(self._http, self._settings, call, idempotency_key)
        attempt = 0
        while True:
            retries_left = attempt < self._settings.max_retries
            try:
                response = await self._http.send(request)
            except httpx.TimeoutException as error:
                failure: APIConnectionError = APITimeoutError(
                    f"{call.method} {request.url} got no answer within {self._settings.timeout} s"
                )
                failure.__cause__ = error
            except httpx.TransportError as error:
                failure = APIConnectionError(f"{call.method} {request.url} failed: {error}")
                failure.__cause__ = error
            else:
                delay = retry_delay(response, attempt)
                if not retries_left or delay is None:
                    return answer_of(call, response)
                await asyncio.sleep(delay)
                attempt += 1
                continue
            if not retries_left:
                raise failure
            await asyncio.sleep(backoff_seconds(attempt))
            attempt += 1


class AsyncTranscripts:
    """Transcripts, batches, lists and jobs.

    Each method takes its request's first field (``video``, ``channel``, ...) and the others as keyword arguments,
    typed from the contract (``verbatim.types``); the whole request as its model or a dict works too.
    """

    def __init__(self, client: AsyncVerbatim) -> None:
        self._client = client

    @overload
    async def video(
        self,
        video: calls.TranscriptInput,
        *,
        wait: Literal[False] = False,
        idempotency_key: Optional[str] = None,
        **options: Unpack[TranscriptRequestOptions],
    ) -> Union[TranscriptEnvelope, JobAccepted]: ...

    @overload
    async def video(
        self,
        video: calls.TranscriptInput,
        *,
        wait: Union[Literal[True], WaitOptions],
        idempotency_key: Optional[str] = None,
        **options: Unpack[TranscriptRequestOptions],
    ) -> Union[TranscriptEnvelope, JobCompleted]: ...

    @overload
    async def video(
        self,
        video: calls.TranscriptInput,
        *,
        wait: Union[bool, WaitOptions],
        idempotency_key: Optional[str] = None,
        **options: Unpack[TranscriptRequestOptions],
    ) -> Union[TranscriptEnvelope, JobAccepted, JobCompleted]: ...

    async def video(
        self,
        video: calls.TranscriptInput,
        *,
        wait: Union[bool, WaitOptions] = False,
        idempotency_key: Optional[str] = None,
        **options: Unpack[TranscriptRequestOptions],
    ) -> Union[TranscriptEnvelope, JobAccepted, JobCompleted]:
        """The transcript of one video (YouTube, TikTok, Instagram, X, Vimeo, Facebook,
        Dailymotion, Twitch, Loom), podcast episode, feed or media file:
        ``video("jNQXAC9IVRw", language="en", translate_to="de", format="srt")``.

        Captions and publisher transcripts answer at once (200); speech recognition of long media
        continues as a job (202, ``JobAccepted``), unless ``wait`` is set: the call then polls the
        job and answers its completed state.
        """
        call = calls.video(video, options)
        answer: Union[TranscriptEnvelope, JobAccepted] = await self._client._send(call, idempotency_key)
        if not wait or not isinstance(answer, JobAccepted):
            return answer
        waiting = wait if isinstance(wait, WaitOptions) else WaitOptions()
        return await self.wait_for_job(
            answer,
            poll_interval=waiting.poll_interval,
            timeout=waiting.timeout,
            on_progress=waiting.on_progress,
            words=calls.asks_words(call),
        )

    async def languages(self, video: calls.LanguagesInput) -> CaptionLanguagesEnvelope:
        """The caption tracks of a source, with the languages each translates into. Free: 0 credits, on the request
        allowance. A source without captions answers an empty list.
        """
        return await self._client._send(calls.languages(video))

    async def batch(
        self,
        video_ids: calls.BatchInput,
        *,
        idempotency_key: Optional[str] = None,
        **options: Unpack[BatchRequestOptions],
    ) -> BatchResultEnvelope:
        """Up to 500 transcripts in one request (50 on Free, Basic and Pro): one row per item, in order."""
        return await self._client._send(calls.batch(video_ids, options), idempotency_key)

    async def channel(
        self,
        channel: calls.ChannelInput,
        *,
        idempotency_key: Optional[str] = None,
        **options: Unpack[ChannelRequestOptions],
    ) -> VideoPageEnvelope:
        """One page of a list, newest first: a YouTube channel's uploads (or a search inside it), a TikTok or
        Instagram profile's posts, or a feed's episodes (``data.platform`` says which); each row's ``url`` goes to
        ``video()`` as is.
        """
        return await self._client._send(calls.channel(channel, options), idempotency_key)

    async def playlist(
        self,
        playlist: calls.PlaylistInput,
        *,
        idempotency_key: Optional[str] = None,
        **options: Unpack[PlaylistRequestOptions],
    ) -> VideoPageEnvelope:
        """One page of a playlist."""
        return await self._client._send(calls.playlist(playlist, options), idempotency_key)

    async def search(
        self,
        query: calls.SearchInput,
        *,
        idempotency_key: Optional[str] = None,
        **options: Unpack[SearchRequestOptions],
    ) -> VideoPageEnvelope:
        """One page of a search. ``platform`` is ``youtube`` (the default), ``apple`` or ``rss`` (Apple's podcast
        directory), or ``spotify`` where the server has Spotify's Web API credentials; TikTok and Instagram have
        no public search: each raises ``unsupported_platform``, as ``spotify`` does elsewhere.
        """
        return await self._client._send(calls.search(query, options), idempotency_key)

    def iter_channel(
        self, channel: calls.ChannelInput, **options: Unpack[ChannelRequestOptions]
    ) -> AsyncPaginator[VideoPageEnvelope, ListRow]:
        """Every row of a channel, profile or feed, page after page (each page is a charged request); stops at
        ``since_video_id``, a row's ``videoId`` or ``url``.
        """
        body = calls.body_of(ChannelRequest, channel, options)
        first_cursor = body.pop("cursor", None)
        return AsyncPaginator(
            lambda cursor: self.channel(with_cursor(body, cursor)), rows_of, next_cursor_of, first_cursor
        )

    def iter_playlist(
        self, playlist: calls.PlaylistInput, **options: Unpack[PlaylistRequestOptions]
    ) -> AsyncPaginator[VideoPageEnvelope, ListRow]:
        """Every row of a playlist, page after page; stops at ``since_video_id``."""
        body = calls.body_of(PlaylistRequest, playlist, options)
        first_cursor = body.pop("cursor", None)
        return AsyncPaginator(
            lambda cursor: self.playlist(with_cursor(body, cursor)), rows_of, next_cursor_of, first_cursor
        )

    def iter_search(
        self, query: calls.SearchInput, **options: Unpack[SearchRequestOptions]
    ) -> AsyncPaginator[VideoPageEnvelope, ListRow]:
        """Every result of a search, page after page; stops at ``since_video_id``."""
        body = calls.body_of(SearchRequest, query, options)
        first_cursor = body.pop("cursor", None)
        return AsyncPaginator(
            lambda cursor: self.search(with_cursor(body, cursor)), rows_of, next_cursor_of, first_cursor
        )

    async def job(self, job_id: str, *, words: bool = False) -> calls.JobState:
        """A speech recognition job's state. A poll: free, on the polling allowance. A failed job is a ``JobFailed``,
        not an exception. With ``words``, a completed job's words are timed.
        """
        return await self._client._send(calls.job(job_id, words))

    async def wait_for_job(
        self,
        job: JobRef,
        *,
        poll_interval: float = DEFAULT_POLL_INTERVAL,
        timeout: float = DEFAULT_WAIT_TIMEOUT,
        on_progress: Optional[ProgressCallback] = None,
        words: bool = False,
    ) -> JobCompleted:
        """Polls a job until it completes and answers its completed state, or raises its error if it fails.

        Waits grow from ``poll_interval`` by half, up to 10 s, and never poll faster than the
        polling allowance the server reports. After ``timeout`` seconds, ``JobTimeoutError``. With ``words``, the
        completed state's words are timed; ``video`` sets it when its request asks ``words``.
        """
        job_id = job_id_of(job)
        started = time.monotonic()
        interval = poll_interval
        while True:
            state = await self.job(job_id, words=words)
            if on_progress is not None:
                on_progress(progress_of(state))
            if isinstance(state, JobCompleted):
                return state
            if isinstance(state, JobFailed):
                raise failure_of(state)
            wait = max(interval, allowance_spacing(state.response.rate_limit))
            if time.monotonic() + wait > started + timeout:
                raise JobTimeoutError(job_id, time.monotonic() - started)
            await asyncio.sleep(wait)
            interval = next_interval(interval)


class AsyncMonitors:
    """Monitors: watch a YouTube channel on a schedule and receive its new videos as events."""

    def __init__(self, client: AsyncVerbatim) -> None:
        self._client = client

    async def create(
        self,
        target: calls.MonitorCreateInput,
        *,
        idempotency_key: Optional[str] = None,
        **options: Unpack[MonitorCreateOptions],
    ) -> CreatedMonitorEnvelope:
        """Creates a monitor of ``target`` (an ``@handle``, a channel URL or a ``UC...`` id); its free baseline is taken
        now. The answer carries the monitor's ``webhook_secret``, shown only this once.
        """
        return await self._client._send(calls.create_monitor(target, options), idempotency_key)

    async def list(self, *, since: Optional[str] = None) -> MonitorListEnvelope:
        """The account's monitors, with ``has_new`` against ``since`` (an event id)."""
        return await self._client._send(calls.list_monitors(since))

    async def get(self, monitor_id: str, *, since: Optional[str] = None) -> MonitorEnvelope:
        """One monitor."""
        return await self._client._send(calls.get_monitor(monitor_id, since))

    async def update(
        self,
        monitor_id: str,
        changes: Optional[calls.MonitorUpdateInput] = None,
        **options: Unpack[MonitorUpdateOptions],
    ) -> MonitorEnvelope:
        """Changes a monitor, ``update(monitor_id, status="paused")``: a field given as ``None`` is cleared, an omitted
        one kept.
        """
        return await self._client._send(calls.update_monitor(monitor_id, changes, options))

    async def delete(self, monitor_id: str) -> MonitorDeletedEnvelope:
        """Deletes a monitor, its events and their pending deliveries."""
        return await self._client._send(calls.delete_monitor(monitor_id))

    async def check(self, monitor_id: str, *, idempotency_key: Optional[str] = None) -> MonitorCheckEnvelope:
        """Checks a monitor now, even when paused. A check that finds nothing is free; new videos cost 1 credit."""
        return await self._client._send(calls.check_monitor(monitor_id), idempotency_key)

    async def events(
        self,
        monitor_id: str,
        *,
        since: Optional[str] = None,
        cursor: Optional[str] = None,
        limit: Optional[int] = None,
    ) -> MonitorEventListEnvelope:
        """One page of a monitor's events, newest first."""
        return await self._client._send(calls.monitor_events(monitor_id, since, cursor, limit))

    def iter_events(
        self, monitor_id: str, *, since: Optional[str] = None, limit: Optional[int] = None
    ) -> AsyncPaginator[MonitorEventListEnvelope, MonitorEvent]:
        """Every event of a monitor, newest first, page after page; with ``since``, only the events newer than it."""
        return AsyncPaginator(
            lambda cursor: self.events(monitor_id, since=since, cursor=cursor, limit=limit),
            events_of,
            next_event_cursor_of,
        )


class AsyncVideos:
    """What sources say about items, without their words."""

    def __init__(self, client: AsyncVerbatim) -> None:
        self._client = client

    async def metadata(
        self, video: calls.MetadataInput, *, idempotency_key: Optional[str] = None
    ) -> VideoMetadataEnvelope:
        """An item's metadata (title, description, channel, length, date, tags, chapters, thumbnails, counts, live
        status and caption tracks), for anything ``transcripts.video`` takes. 1 credit, nothing when it fails.
        """
        return await self._client._send(calls.metadata(video), idempotency_key)


class AsyncLibrary:
    """The account's library: every transcript it has fetched, through any surface, listed and searched. Free."""

    def __init__(self, client: AsyncVerbatim) -> None:
        self._client = client

    async def page(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> LibraryPageEnvelope:
        """One page of the library, the most recently fetched first."""
        return await self._client._send(calls.library(limit, cursor))

    async def get(self, entry_id: str, **query: Unpack[GetLibraryTranscriptQuery]) -> LibraryTranscriptEnvelope:
        """One transcript of the library by its entry's ``id`` (``youtube:jNQXAC9IVRw``), written out as ``format``
        asks, with ``chunks`` when ``chunk_size`` is given. Free.
        """
        return await self._client._send(calls.library_transcript(entry_id, query))

    async def search_page(
        self, query: calls.LibrarySearchInput, **options: Unpack[LibrarySearchRequestOptions]
    ) -> LibrarySearchPageEnvelope:
        """One page of hits, each with highlighted snippets and links to the moment they are spoken."""
        return await self._client._send(calls.search_library(query, options))

    def list(self, *, limit: Optional[int] = None) -> AsyncPaginator[LibraryPageEnvelope, LibraryEntry]:
        """Every entry of the library, page after page."""
        return AsyncPaginator(
            lambda cursor: self.page(limit=limit, cursor=cursor), library_entries_of, library_cursor_of
        )

    def search(
        self, query: calls.LibrarySearchInput, **options: Unpack[LibrarySearchRequestOptions]
    ) -> AsyncPaginator[LibrarySearchPageEnvelope, LibraryHit]:
        """Every hit of a search, page after page."""
        body = calls.body_of(LibrarySearchRequest, query, options)
        first_cursor = body.pop("cursor", None)
        return AsyncPaginator(
            lambda cursor: self.search_page(with_cursor(body, cursor)), library_hits_of, library_cursor_of, first_cursor
        )


class AsyncLive:
    """Live sessions: a stream transcribed as it plays, its events read as they come."""

    def __init__(self, client: AsyncVerbatim) -> None:
        self._client = client

    async def create(
        self,
        url: calls.LiveCreateInput,
        *,
        idempotency_key: Optional[str] = None,
        **options: Unpack[LiveCreateOptions],
    ) -> LiveSessionEnvelope:
        """Starts a session of the stream at ``url``; the answer (202) carries its ``events_url`` and ``poll_url``."""
        return await self._client._send(calls.create_live(url, options), idempotency_key)

    async def start(
        self,
        url: calls.LiveCreateInput,
        *,
        idempotency_key: Optional[str] = None,
        **options: Unpack[LiveCreateOptions],
    ) -> AsyncLiveSessionHandle:
        """Starts a session and answers its handle, to iterate its events and stop it."""
        created = await self.create(url, idempotency_key=idempotency_key, **options)
        return AsyncLiveSessionHandle(self, created.data.id)

    def session(self, session_id: str) -> AsyncLiveSessionHandle:
        """The handle of a session started earlier."""
        return AsyncLiveSessionHandle(self, session_id)

    async def get(self, session_id: str, **query: Unpack[GetLiveSessionQuery]) -> LiveSessionDetailEnvelope:
        """One session, with its final segments after ``after`` (at most ``limit``)."""
        return await self._client._send(calls.get_live(session_id, query))

    async def list(self, **query: Unpack[ListLiveSessionsQuery]) -> LiveSessionListEnvelope:
        """One page of the account's sessions, newest first."""
        return await self._client._send(calls.list_live(query))

    async def stop(self, session_id: str) -> LiveSessionEnvelope:
        """Stops a session: what it transcribed is charged, and its transcript goes to the library."""
        return await self._client._send(calls.stop_live(session_id))

    async def events(
        self, session_id: str, *, last_event_id: Optional[int] = None, reconnect: bool = True
    ) -> AsyncIterator[LiveEvent]:
        """The session's events as they come: the durable ones once each, in order, and partials as words are heard.
        A dropped connection is made again with ``Last-Event-ID``; the iteration ends after ``live.ended`` or
        ``live.failed``. An error answer (an unknown session) is raised.
        """
        client = self._client
        url = client._settings.base_url + calls.live_events_path(session_id)
        delay = FIRST_RECONNECT_DELAY
        while True:
            headers = {**client._settings.headers(), **resume_headers(last_event_id)}
            timeout = httpx.Timeout(client._settings.timeout, read=None)
            try:
                async with client._http.stream("GET", url, headers=headers, timeout=timeout) as response:
                    if response.status_code >= 400:
                        await response.aread()
                        try:
                            body = response.json()
                        except ValueError:
                            body = response.text
                        failure = error_of(
                            body,
                            response.status_code,
                            response.headers.get("x-request-id"),
                            retry_after_seconds(response.headers),
                        )
                        if not reconnect or not (isinstance(failure, APIError) and failure.retryable):
                            raise failure
                    else:
                        reader = EventStreamReader()
                        async for line in response.aiter_lines():
                            message = reader.feed(line.rstrip("\r"))
                            if message is None:
                                continue
                            delay = FIRST_RECONNECT_DELAY
                            event = parse_event(message)
                            if message.id is not None:
                                last_event_id = int(message.id)
                            yield event
                            if event.type in FINAL_TYPES:
                                return
            except httpx.TransportError:
                if not reconnect:
                    raise
            if not reconnect:
                return
            await asyncio.sleep(delay)
            delay = next_delay(delay)


class AsyncLiveSessionHandle:
    """A session to follow: its events, with reconnection, from where the handle left off, and its end."""

    def __init__(self, live: AsyncLive, session_id: str) -> None:
        self._live = live
        self.id = session_id
        self.last_event_id: Optional[int] = None
        """The ``seq`` of the last durable event this handle gave."""

    async def events(self) -> AsyncIterator[LiveEvent]:
        async for event in self._live.events(self.id, last_event_id=self.last_event_id):
            seq = getattr(event, "seq", None)
            if isinstance(seq, int):
                self.last_event_id = seq
            yield event

    def __aiter__(self) -> AsyncIterator[LiveEvent]:
        return self.events()

    async def get(self, **query: Unpack[GetLiveSessionQuery]) -> LiveSessionDetailEnvelope:
        return await self._live.get(self.id, **query)

    async def stop(self) -> LiveSessionEnvelope:
        return await self._live.stop(self.id)
