"""Every resource of the sync client against the session's live server (apps/api/test/support/python-sdk-server.ts)."""

from __future__ import annotations

import uuid
from typing import List

import pytest

from verbatim import (
    AccountError,
    ContentError,
    JobProgress,
    RequestError,
    Verbatim,
    WaitOptions,
    to_text,
    verify_webhook,
)
from verbatim.models import (
    BatchRowError,
    BatchRowOk,
    JobAccepted,
    JobCompleted,
    MonitorVideosWebhook,
    TranscriptEnvelope,
    TranscriptJobCompletedWebhook,
    VideoRow,
)

from .conftest import Account, LiveServer, Receiver, new_account

SPOKEN_PHRASE = "what you can do for your country"


def jfk(live: LiveServer) -> str:
    """The JFK recording under an address of its own: each address is new media, so a new job."""
    return f"{live.info['media']['jfk']}?{uuid.uuid4().hex}"


def test_health_me_and_usage_describe_the_server_and_the_account(client: Verbatim, account: Account) -> None:
    health = client.health()
    assert (health.data.status, health.data.service) == ("ok", "verbatim")
    me = client.me()
    assert (me.data.user_id, me.data.plan, me.data.credits) == (account.account_id, "pro", 1000)
    assert me.response.rate_limit is not None and me.response.rate_limit.limit > 0
    assert me.response.request_id == me.request_id
    usage = client.usage()
    assert (usage.data.kind, usage.data.balance, usage.data.credits_spent) == ("usage", 1000, 0)
    deep = client.deep_health()
    assert deep.data.kind == "health_deep"
    assert {check.name for check in deep.data.checks} >= {"database"}


def test_video_answers_a_captioned_video_at_once_charged_one_credit(client: Verbatim, live: LiveServer) -> None:
    transcript = client.transcripts.video(live.info["videos"]["captioned"])
    assert isinstance(transcript, TranscriptEnvelope)
    assert transcript.response.http_status == 200
    assert transcript.response.request_id.startswith("req_")
    assert (transcript.data.video_id, transcript.data.source) == (live.info["videos"]["captioned"], "captions")
    segments = transcript.data.segments or []
    assert len(segments) > 0
    assert transcript.usage.credits_spent == 1
    assert transcript.usage.bytes == len(" ".join(segment.text for segment in segments).encode())
    assert client.me().data.credits == 999


def test_the_same_idempotency_key_replays_the_first_answer_without_charging_again(
    client: Verbatim, live: LiveServer
) -> None:
    request = {"video": live.info["videos"]["json3Captioned"], "timestamps": False}
    first = client.transcripts.video(request, idempotency_key="python-replay")
    again = client.transcripts.video(request, idempotency_key="python-replay")
    assert isinstance(first, TranscriptEnvelope) and isinstance(again, TranscriptEnvelope)
    assert (first.response.replayed, again.response.replayed) == (False, True)
    assert again.data.text == first.data.text
    assert client.me().data.credits == 999


def test_a_private_video_raises_content_error_private(client: Verbatim, live: LiveServer) -> None:
    with pytest.raises(ContentError) as raised:
        client.transcripts.video({"video": live.info["videos"]["private"]})
    error = raised.value
    assert (error.status, error.code, error.number, error.retryable) == (422, "private", 4001, False)
    assert error.request_id is not None and error.request_id.startswith("req_")
    assert error.docs.endswith("/docs/errors/private")


def test_videos_metadata_answers_what_youtube_says_charged_one_credit(client: Verbatim, live: LiveServer) -> None:
    metadata = client.videos.metadata(f"https://youtu.be/{live.info['videos']['captioned']}")
    data = metadata.data
    assert (data.kind, data.platform, data.video_id) == ("video_metadata", "youtube", live.info["videos"]["captioned"])
    assert (data.title, data.channel.name, data.duration) == ("Surface Go Review - It\u2019s Awesome", "Dave2D", 316)
    assert data.stats is not None and data.stats.views == 1856109
    assert [(track.language, track.kind) for track in data.captions][-1] == ("en", "auto")
    assert metadata.usage.credits_spent == 1
    assert client.me().data.credits == 999
    with pytest.raises(ContentError) as raised:
        client.videos.metadata(live.info["videos"]["private"])
    assert (raised.value.status, raised.value.code, raised.value.number) == (422, "private", 4001)
    assert client.me().data.credits == 999


def test_a_refused_key_raises_request_error_unauthorized(live: LiveServer) -> None:
    stranger = Verbatim(api_key="vb_live_" + "0" * 32, base_url=live.info["api"]["baseUrl"])
    with stranger, pytest.raises(RequestError) as raised:
        stranger.me()
    assert (raised.value.status, raised.value.code, raised.value.number) == (401, "unauthorized", 1101)


def test_an_account_without_credits_raises_account_error_insufficient_credits(live: LiveServer) -> None:
    broke = new_account(live, credits=0)
    verbatim = Verbatim(api_key=broke.api_key, base_url=broke.base_url)
    with verbatim, pytest.raises(AccountError) as raised:
        verbatim.transcripts.video(live.info["videos"]["captioned"])
    assert (raised.value.status, raised.value.code, raised.value.number) == (402, "insufficient_credits", 2001)


def test_an_invalid_request_raises_request_error_with_its_issues(client: Verbatim) -> None:
    with pytest.raises(RequestError) as raised:
        client.transcripts.video({"video": "jNQXAC9IVRw", "language": "not a language!"})
    assert (raised.value.status, raised.value.code) == (400, "invalid_request")
    assert any("language" in str(issue.get("path")) for issue in raised.value.issues)


def test_batch_answers_one_row_per_item_in_order(client: Verbatim, live: LiveServer) -> None:
    videos = live.info["videos"]
    batch = client.transcripts.batch({"video_ids": [videos["captioned"], videos["takenDown"]]})
    ok, failed = batch.data.results
    assert isinstance(ok, BatchRowOk) and ok.video_id == videos["captioned"] and ok.segments
    assert isinstance(failed, BatchRowError) and failed.error.code == "unavailable"
    assert batch.usage.credits_spent == 1


def test_channel_playlist_and_search_answer_one_page_with_a_cursor(client: Verbatim, live: LiveServer) -> None:
    lists = live.info["lists"]
    channel = client.transcripts.channel({"channel": lists["channel"]["channel"], "limit": 10})
    assert [row.videoId for row in channel.data.videos if isinstance(row, VideoRow)] == lists["channel"]["videoIds"][
        :10
    ]
    assert channel.data.next_cursor is not None
    playlist = client.transcripts.playlist({"playlist": lists["playlist"]["playlist"], "limit": 5})
    assert [row.videoId for row in playlist.data.videos if isinstance(row, VideoRow)] == lists["playlist"]["videoIds"][
        :5
    ]
    search = client.transcripts.search({"query": lists["search"]["query"], "limit": 5})
    assert [row.videoId for row in search.data.videos if isinstance(row, VideoRow)] == lists["search"]["videoIds"][:5]


def test_the_iterators_walk_the_whole_recorded_channel_playlist_and_search(client: Verbatim, live: LiveServer) -> None:
    lists = live.info["lists"]
    channel = client.transcripts.iter_channel(lists["channel"]["channel"], limit=20)
    assert [row.videoId for row in channel if isinstance(row, VideoRow)] == lists["channel"]["videoIds"]
    playlist = client.transcripts.iter_playlist(lists["playlist"]["playlist"], limit=50)
    assert [row.videoId for row in playlist if isinstance(row, VideoRow)] == lists["playlist"]["videoIds"]
    search = client.transcripts.iter_search(lists["search"]["query"], limit=50)
    assert [row.videoId for row in search if isinstance(row, VideoRow)] == lists["search"]["videoIds"]
    pages = list(client.transcripts.iter_channel(lists["channel"]["channel"], limit=20).pages())
    assert len(pages) == -(-len(lists["channel"]["videoIds"]) // 20)
    assert all(page.usage.credits_spent == 1 for page in pages)


def test_a_job_goes_from_202_through_wait_for_job_and_delivers_a_signed_callback(
    client: Verbatim, account: Account, live: LiveServer, receiver: Receiver
) -> None:
    callback_path = f"/job-{uuid.uuid4().hex}"
    accepted = client.transcripts.video(jfk(live), callback_url=receiver.url + callback_path)
    assert isinstance(accepted, JobAccepted)
    assert (accepted.response.http_status, accepted.status) == (202, "processing")
    assert accepted.poll_url == f"/api/v2/transcripts/jobs/{accepted.job_id}"
    assert client.transcripts.job(accepted.job_id).job_id == accepted.job_id

    reports: List[JobProgress] = []
    done = client.transcripts.wait_for_job(accepted, poll_interval=0.2, timeout=120, on_progress=reports.append)
    assert isinstance(done, JobCompleted)
    assert SPOKEN_PHRASE in done.data.text
    assert reports[-1] == JobProgress(accepted.job_id, "completed", 1.0)
    assert all(report.status == "processing" for report in reports[:-1])
    assert SPOKEN_PHRASE in to_text(done.data.segments)

    delivery = receiver.wait_for(callback_path)
    event = verify_webhook(delivery.body, delivery.headers, account.webhook_secret)
    assert isinstance(event, TranscriptJobCompletedWebhook)
    assert (event.job_id, event.data.text) == (accepted.job_id, done.data.text)


def test_video_with_wait_answers_the_completed_job(client: Verbatim, live: LiveServer) -> None:
    done = client.transcripts.video(jfk(live), wait=WaitOptions(poll_interval=0.2, timeout=120))
    assert isinstance(done, JobCompleted)
    assert SPOKEN_PHRASE in done.data.text


def test_monitors_are_created_listed_read_updated_checked_and_deleted_with_a_signed_delivery(
    live: LiveServer, receiver: Receiver
) -> None:
    owner = new_account(live, server="monitors")
    webhook_path = f"/monitor-{uuid.uuid4().hex}"
    with Verbatim(api_key=owner.api_key, base_url=owner.base_url) as verbatim:
        created = verbatim.monitors.create(
            {"target": live.info["monitors"]["channel"], "webhook_url": receiver.url + webhook_path}
        )
        monitor_id = created.data.id
        assert created.response.http_status == 201
        assert created.data.webhook_secret.startswith("whsec_")
        assert [monitor.id for monitor in verbatim.monitors.list().data.monitors] == [monitor_id]
        assert verbatim.monitors.get(monitor_id).data.target == created.data.target

        renamed = verbatim.monitors.update(monitor_id, {"name": "python", "status": "paused"})
        assert (renamed.data.name, renamed.data.status) == ("python", "paused")
        assert verbatim.monitors.update(monitor_id, {"name": None}).data.name is None

        live.command(command="publish_new_uploads")
        check = verbatim.monitors.check(monitor_id)
        assert check.data.new_videos > 0 and check.data.event is not None
        events = list(verbatim.monitors.iter_events(monitor_id, limit=1))
        assert [event.id for event in events] == [check.data.event.id]
        assert verbatim.monitors.events(monitor_id).data.events[0].id == check.data.event.id

        delivery = receiver.wait_for(webhook_path)
        event = verify_webhook(delivery.body, delivery.headers, created.data.webhook_secret)
        assert isinstance(event, MonitorVideosWebhook)
        assert event.id == check.data.event.id
        assert [video.videoId for video in event.data.videos] == [
            video.videoId for video in check.data.event.data.videos
        ]

        assert verbatim.monitors.delete(monitor_id).data.id == monitor_id
        with pytest.raises(RequestError) as raised:
            verbatim.monitors.get(monitor_id)
        assert raised.value.code == "not_found"


def test_the_library_lists_and_searches_what_the_account_fetched(live: LiveServer) -> None:
    reader = new_account(live)
    with Verbatim(api_key=reader.api_key, base_url=reader.base_url) as verbatim:
        transcript = verbatim.transcripts.video(live.info["videos"]["captioned"])
        assert isinstance(transcript, TranscriptEnvelope)
        entries = list(verbatim.library.list(limit=1))
        assert [entry.video_id for entry in entries] == [live.info["videos"]["captioned"]]
        words = " ".join((transcript.data.segments or [])[0].text.split()[:3])
        hits = list(verbatim.library.search(f'"{words}"'))
        assert [hit.video_id for hit in hits] == [live.info["videos"]["captioned"]]
        snippet = hits[0].snippets[0]
        assert snippet.start == 0
        assert "<mark>" in snippet.highlight
        assert list(verbatim.library.search({"query": f'"{words}" -{words.split()[0]}'})) == []
