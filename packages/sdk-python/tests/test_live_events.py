"""Reading a live session's server-sent events, without a server: the lines of a body become events, keep-alives and
events without data are skipped, and each event's data parses to its model."""

from __future__ import annotations

from verbatim._live import EventStreamReader, ServerSentEvent, parse_event, resume_headers
from verbatim.generated.models import LiveEndedEvent, LivePartialEvent, LiveSegmentEvent

SEGMENT = (
    '{"type":"live.segment","seq":2,"session_id":"live_01JD7XT4C6E8G0J2K4N6Q8S0V2",'
    '"created_at":"2026-11-22T10:00:09Z","start":0.0,"duration":1.2,"text":"ask not",'
    '"words":[{"text":"ask","start":0.0,"duration":0.5},{"text":"not","start":0.5,"duration":0.7}]}'
)


def test_lines_become_events_with_their_id_and_comments_are_skipped() -> None:
    lines = [
        ": keep-alive",
        "",
        "event: live.partial",
        'data: {"type":"live.partial","session_id":"live_01JD7XT4C6E8G0J2K4N6Q8S0V2","start":0.0,"text":"ask"}',
        "",
        "id: 2",
        "event: live.segment",
        "data: " + SEGMENT,
        "",
        "event: empty",
        "",
    ]
    reader = EventStreamReader()
    events = [event for event in map(reader.feed, lines) if event is not None]
    assert [(event.event, event.id) for event in events] == [("live.partial", None), ("live.segment", "2")]
    assert isinstance(parse_event(events[0]), LivePartialEvent)
    segment = parse_event(events[1])
    assert isinstance(segment, LiveSegmentEvent)
    assert (segment.seq, segment.text, [word.text for word in segment.words]) == (2, "ask not", ["ask", "not"])


def test_data_lines_join_with_newlines_and_a_space_after_the_colon_is_dropped() -> None:
    reader = EventStreamReader()
    assert reader.feed("data:first") is None
    assert reader.feed("data: second") is None
    assert reader.feed("id: 7\x00") is None
    assert reader.feed("") == ServerSentEvent("message", "first\nsecond", None)


def test_the_end_of_a_session_parses_to_its_reason() -> None:
    ended = parse_event(
        ServerSentEvent(
            "live.ended",
            '{"type":"live.ended","seq":9,"session_id":"live_01JD7XT4C6E8G0J2K4N6Q8S0V2",'
            '"created_at":"2026-11-22T10:05:00Z","reason":"stopped","audio_seconds":61.5,"credits_spent":2}',
            "9",
        )
    )
    assert isinstance(ended, LiveEndedEvent)
    assert (ended.reason, ended.credits_spent) == ("stopped", 2)


def test_a_resumed_stream_names_the_last_event_seen() -> None:
    assert resume_headers(None) == {"Accept": "text/event-stream"}
    assert resume_headers(4) == {"Accept": "text/event-stream", "Last-Event-ID": "4"}
