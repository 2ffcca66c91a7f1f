"""SRT, WebVTT and text from segments."""

from __future__ import annotations

from verbatim import to_srt, to_text, to_vtt
from verbatim.models import Segment

SEGMENTS = [
    Segment(start=0.0, duration=1.5, text="Hello  there"),
    Segment(start=65.25, duration=2.0, text="first line\n\nsecond --> line"),
    Segment(start=3725.0, duration=0.5, text="an hour in"),
]


def test_srt_numbers_cues_with_comma_times_and_keeps_no_blank_line_inside_a_cue() -> None:
    assert to_srt(SEGMENTS) == (
        "1\n00:00:00,000 --> 00:00:01,500\nHello  there\n\n"
        "2\n00:01:05,250 --> 00:01:07,250\nfirst line\nsecond --> line\n\n"
        "3\n01:02:05,000 --> 01:02:05,500\nan hour in\n"
    )


def test_vtt_has_its_header_dot_times_and_no_arrow_inside_a_cue() -> None:
    assert to_vtt(SEGMENTS) == (
        "WEBVTT\n\n"
        "00:00:00.000 --> 00:00:01.500\nHello  there\n\n"
        "00:01:05.250 --> 00:01:07.250\nfirst line\nsecond -> line\n\n"
        "01:02:05.000 --> 01:02:05.500\nan hour in\n"
    )


def test_text_is_one_paragraph_or_one_timestamped_line_per_segment() -> None:
    assert to_text(SEGMENTS) == "Hello there first line second --> line an hour in"
    assert to_text(SEGMENTS, timestamps=True) == (
        "[00:00] Hello there\n[01:05] first line second --> line\n[1:02:05] an hour in"
    )
