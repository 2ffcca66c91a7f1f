"""Every resource of the async client against the session's live server (apps/api/test/support/python-sdk-server.ts)."""

from __future__ import annotations

import uuid
from typing import List

import pytest

from verbatim import AccountError, AsyncVerbatim, ContentError, JobProgress, RequestError, WaitOptions
from verbatim.models import BatchRowError, BatchRowOk, JobAccepted, JobCompleted, TranscriptEnvelope, VideoRow

from .conftest import Account, LiveServer, new_account

SPOKEN_PHRASE = "what you can do for your country"


async def test_health_me_and_usage_describe_the_server_and_the_account(
    async_client: AsyncVerbatim, account: Account
) -> None:
    assert (await async_client.health()).data.status == "ok"
    me = await async_client.me()
    assert (me.data.user_id, me.data.credits) == (account.account_id, 1000)
    assert (await async_client.usage()).data.balance == 1000
    assert (await async_client.deep_health()).data.kind == "health_deep"


async def test_video_answers_a_captioned_video_and_raises_typed_errors(
    async_client: AsyncVerbatim, live: LiveServer
) -> None:
    transcript = await async_client.transcripts.video(live.info["videos"]["captioned"])
    assert isinstance(transcript, TranscriptEnvelope)
    assert transcript.response.http_status == 200 and transcript.data.segments
    with pytest.raises(ContentError) as private:
        await async_client.transcripts.video(live.info["videos"]["private"])
    assert (private.value.status, private.value.code, private.value.number) == (422, "private", 4001)


async def test_videos_metadata_answers_and_raises_typed_errors(async_client: AsyncVerbatim, live: LiveServer) -> None:
    metadata = await async_client.videos.metadata(live.info["videos"]["captioned"])
    assert (metadata.data.kind, metadata.data.video_id) == ("video_metadata", live.info["videos"]["captioned"])
    assert metadata.data.title == "Surface Go Review - It\u2019s Awesome"
    assert metadata.usage.credits_spent == 1
    with pytest.raises(ContentError) as private:
        await async_client.videos.metadata(live.info["videos"]["private"])
    assert (private.value.status, private.value.code, private.value.number) == (422, "private", 4001)


async def test_a_refused_key_and_an_empty_balance_raise_their_errors(live: LiveServer) -> None:
    async with AsyncVerbatim(api_key="vb_live_" + "0" * 32, base_url=live.info["api"]["baseUrl"]) as stranger:
        with pytest.raises(RequestError) as unauthorized:
            await stranger.me()
    assert unauthorized.value.code == "unauthorized"
    broke = new_account(live, credits=0)
    async with AsyncVerbatim(api_key=broke.api_key, base_url=broke.base_url) as verbatim:
        with pytest.raises(AccountError) as insufficient:
            await verbatim.transcripts.video(live.info["videos"]["captioned"])
    assert (insufficient.value.status, insufficient.value.code) == (402, "insufficient_credits")


async def test_batch_and_one_page_of_each_list(async_client: AsyncVerbatim, live: LiveServer) -> None:
    videos, lists = live.info["videos"], live.info["lists"]
    batch = await async_client.transcripts.batch({"video_ids": [videos["captioned"], videos["takenDown"]]})
    assert [type(row) for row in batch.data.results] == [BatchRowOk, BatchRowError]
    channel = await async_client.transcripts.channel({"channel": lists["channel"]["channel"], "limit": 3})
    playlist = await async_client.transcripts.playlist({"playlist": lists["playlist"]["playlist"], "limit": 3})
    search = await async_client.transcripts.search({"query": lists["search"]["query"], "limit": 3})
    for page, name in ((channel, "channel"), (playlist, "playlist"), (search, "search")):
        assert [row.videoId for row in page.data.videos if isinstance(row, VideoRow)] == lists[name]["videoIds"][:3]


async def test_async_for_walks_the_whole_recorded_channel_playlist_and_search(
    async_client: AsyncVerbatim, live: LiveServer
) -> None:
    lists = live.info["lists"]
    walks = {
        "channel": async_client.transcripts.iter_channel(lists["channel"]["channel"], limit=20),
        "playlist": async_client.transcripts.iter_playlist(lists["playlist"]["playlist"], limit=50),
        "search": async_client.transcripts.iter_search(lists["search"]["query"], limit=50),
    }
    for name, walk in walks.items():
        assert [row.videoId async for row in walk if isinstance(row, VideoRow)] == lists[name]["videoIds"]


async def test_a_job_goes_from_202_to_wait_for_job_and_video_can_wait_itself(
    async_client: AsyncVerbatim, live: LiveServer
) -> None:
    accepted = await async_client.transcripts.video(f"{live.info['media']['jfk']}?{uuid.uuid4().hex}")
    assert isinstance(accepted, JobAccepted) and accepted.response.http_status == 202
    assert (await async_client.transcripts.job(accepted.job_id)).job_id == accepted.job_id
    reports: List[JobProgress] = []
    done = await async_client.transcripts.wait_for_job(
        accepted.job_id, poll_interval=0.2, timeout=120, on_progress=reports.append
    )
    assert SPOKEN_PHRASE in done.data.text
    assert reports[-1].status == "completed"
    waited = await async_client.transcripts.video(
        f"{live.info['media']['jfk']}?{uuid.uuid4().hex}", wait=WaitOptions(poll_interval=0.2, timeout=120)
    )
    assert isinstance(waited, JobCompleted) and SPOKEN_PHRASE in waited.data.text


async def test_monitors_through_the_async_client(live: LiveServer) -> None:
    owner = new_account(live, server="monitors")
    async with AsyncVerbatim(api_key=owner.api_key, base_url=owner.base_url) as verbatim:
        created = await verbatim.monitors.create({"target": live.info["monitors"]["channel"], "name": "async"})
        monitor_id = created.data.id
        assert [monitor.id for monitor in (await verbatim.monitors.list()).data.monitors] == [monitor_id]
        assert (await verbatim.monitors.get(monitor_id)).data.name == "async"
        assert (await verbatim.monitors.update(monitor_id, {"status": "paused"})).data.status == "paused"
        checked: List[str] = []
        for _ in range(2):
            live.command(command="publish_one_upload")
            check = await verbatim.monitors.check(monitor_id)
            assert check.data.monitor.id == monitor_id
            assert check.data.new_videos > 0 and check.data.event is not None
            checked.append(check.data.event.id)
        page = await verbatim.monitors.events(monitor_id)
        # Newest first; a page of one event at a time walks both.
        assert [event.id for event in page.data.events] == checked[::-1]
        assert [event.id async for event in verbatim.monitors.iter_events(monitor_id, limit=1)] == checked[::-1]
        assert (await verbatim.monitors.delete(monitor_id)).data.id == monitor_id
