"""The SDK call of every operation of the contract, as the API reference shows it (``x-codeSamples``).

Type-checked against the SDK by mypy --strict; scripts/generate-code-samples.mjs turns each
function's body into a sample (its ``return`` printed) and fails when an operation has none.
"""

from __future__ import annotations

from typing import Callable, Dict, Mapping

from verbatim import Verbatim, verify_webhook


def fetch_video_transcript(verbatim: Verbatim) -> object:
    transcript = verbatim.transcripts.video("jNQXAC9IVRw", language="en", wait=True)
    return transcript.data.text, [segment.start for segment in transcript.data.segments or []]


def fetch_transcripts_batch(verbatim: Verbatim) -> object:
    batch = verbatim.transcripts.batch(["jNQXAC9IVRw", "https://youtu.be/aBcDeFgHiJk"], translate_to="de")
    return [row for row in batch.data.results if row.outcome == "error"]


def list_transcript_languages(verbatim: Verbatim) -> object:
    tracks = verbatim.transcripts.languages("https://youtu.be/jNQXAC9IVRw")
    return [(track.language, track.kind, len(track.translation_targets)) for track in tracks.data.languages]


def get_video_metadata(verbatim: Verbatim) -> object:
    metadata = verbatim.videos.metadata("https://www.youtube.com/watch?v=ud9d5cMDP_0")
    return metadata.data.title, [(chapter.start, chapter.title) for chapter in metadata.data.chapters]


def get_transcript_job(verbatim: Verbatim, job_id: str) -> object:
    job = verbatim.transcripts.job(job_id)
    return job.data.text if job.status == "completed" else job.status


def fetch_channel_videos(verbatim: Verbatim) -> object:
    videos = list(verbatim.transcripts.iter_channel("@jawed", limit=50))
    return len(videos)


def fetch_playlist_videos(verbatim: Verbatim) -> object:
    page = verbatim.transcripts.playlist("PLFgquLnL59alCl_2TQvOiD5Vgm1hCaGSI", limit=25)
    return page.data.next_cursor


def search_videos(verbatim: Verbatim) -> object:
    rows = verbatim.transcripts.iter_search("me at the zoo", limit=10)
    return [row for _, row in zip(range(10), rows)]


def list_library(verbatim: Verbatim) -> object:
    return [entry.title for _, entry in zip(range(20), verbatim.library.list())]


def get_library_transcript(verbatim: Verbatim) -> object:
    transcript = verbatim.library.get("youtube:jNQXAC9IVRw", format="text", chunk_size=1000)
    return [(chunk.start, chunk.end, chunk.text) for chunk in transcript.data.chunks or []]


def search_library(verbatim: Verbatim) -> object:
    hits = verbatim.library.search('"ask not" -remix', platform="youtube")
    return [(hit.title, snippet.start, snippet.url) for _, hit in zip(range(10), hits) for snippet in hit.snippets]


def me(verbatim: Verbatim) -> object:
    account = verbatim.me()
    return account.data.credits, account.response.rate_limit


def get_usage(verbatim: Verbatim) -> object:
    usage = verbatim.usage(from_="2026-11-01", to="2026-11-30")
    return usage.data.endpoints


def health_check(verbatim: Verbatim) -> object:
    health = verbatim.health()
    return health.data.status


def deep_health_check(verbatim: Verbatim) -> object:
    health = verbatim.deep_health()
    return [check for check in health.data.checks if check.status == "failing"]


def create_monitor(verbatim: Verbatim) -> object:
    created = verbatim.monitors.create("@NASA", webhook_url="https://hooks.example.com/verbatim")
    return created.data.id, created.data.webhook_secret


def list_monitors(verbatim: Verbatim) -> object:
    monitors = verbatim.monitors.list()
    return [monitor.id for monitor in monitors.data.monitors if monitor.has_new]


def get_monitor(verbatim: Verbatim, monitor_id: str) -> object:
    monitor = verbatim.monitors.get(monitor_id)
    return monitor.data.status, monitor.data.next_check_at


def update_monitor(verbatim: Verbatim, monitor_id: str) -> object:
    monitor = verbatim.monitors.update(monitor_id, status="paused", webhook_url=None)
    return monitor.data.status


def delete_monitor(verbatim: Verbatim, monitor_id: str) -> object:
    deleted = verbatim.monitors.delete(monitor_id)
    return deleted.data.id


def check_monitor(verbatim: Verbatim, monitor_id: str) -> object:
    check = verbatim.monitors.check(monitor_id)
    return check.data.new_videos


def list_monitor_events(verbatim: Verbatim, monitor_id: str) -> object:
    events = list(verbatim.monitors.iter_events(monitor_id))
    return [event.type for event in events]


def create_live_session(verbatim: Verbatim) -> object:
    session = verbatim.live.start("https://radio.example.org/hearings/live.m3u8")
    segments = [event.text for event in session.events() if event.type == "live.segment"]
    return session.id, segments


def list_live_sessions(verbatim: Verbatim) -> object:
    sessions = verbatim.live.list(status="live")
    return [(session.id, session.audio_seconds) for session in sessions.data.sessions]


def get_live_session(verbatim: Verbatim, session_id: str) -> object:
    session = verbatim.live.get(session_id, after=0, limit=100)
    return session.data.status, " ".join(segment.text for segment in session.data.segments)


def stream_live_events(verbatim: Verbatim, session_id: str) -> object:
    events = verbatim.live.events(session_id, last_event_id=0)
    return [event.text for event in events if event.type == "live.segment"]


def stop_live_session(verbatim: Verbatim, session_id: str) -> object:
    stopped = verbatim.live.stop(session_id)
    return stopped.data.status, stopped.data.credits_spent


def receive_webhook(raw_body: bytes, headers: Mapping[str, str], secret: str) -> object:
    event = verify_webhook(raw_body, headers, secret)
    return event.type


OPERATION_SAMPLES: Dict[str, Callable[..., object]] = {
    "fetchVideoTranscript": fetch_video_transcript,
    "fetchTranscriptsBatch": fetch_transcripts_batch,
    "listTranscriptLanguages": list_transcript_languages,
    "getVideoMetadata": get_video_metadata,
    "getTranscriptJob": get_transcript_job,
    "fetchChannelVideos": fetch_channel_videos,
    "fetchPlaylistVideos": fetch_playlist_videos,
    "searchVideos": search_videos,
    "listLibrary": list_library,
    "getLibraryTranscript": get_library_transcript,
    "searchLibrary": search_library,
    "me": me,
    "getUsage": get_usage,
    "healthCheck": health_check,
    "deepHealthCheck": deep_health_check,
    "createMonitor": create_monitor,
    "listMonitors": list_monitors,
    "getMonitor": get_monitor,
    "updateMonitor": update_monitor,
    "deleteMonitor": delete_monitor,
    "checkMonitor": check_monitor,
    "listMonitorEvents": list_monitor_events,
    "createLiveSession": create_live_session,
    "listLiveSessions": list_live_sessions,
    "getLiveSession": get_live_session,
    "streamLiveEvents": stream_live_events,
    "stopLiveSession": stop_live_session,
}
"""Every operation a client calls, by operationId; the webhooks' sample is ``receive_webhook``."""
