"""SRT, WebVTT and text from segments: the SDK's own writers, and the WebVTT the live server writes, read back by
yt-dlp's WebVTT parser.
"""

from __future__ import annotations

import html
import json
import unicodedata
from pathlib import Path
from typing import List, Sequence, Tuple

import pytest
from yt_dlp import webvtt

from verbatim import Verbatim, to_srt, to_text, to_vtt
from verbatim.models import Segment, TranscriptEnvelope

from .conftest import LiveServer

SEGMENTS = [
    Segment(start=0.0, duration=1.5, text="Hello  there"),
    Segment(start=65.25, duration=2.0, text="first line\n\nsecond --> line"),
    Segment(start=3725.0, duration=0.5, text="an hour in"),
]


CONFORMANCE = Path(__file__).resolve().parents[2] / "contract" / "conformance" / "subtitles.json"


def test_srt_numbers_cues_with_comma_times_and_writes_each_segment_on_one_line() -> None:
    assert to_srt(SEGMENTS) == (
        "1\n00:00:00,000 --> 00:00:01,500\nHello there\n\n"
        "2\n00:01:05,250 --> 00:01:07,250\nfirst line second --&gt; line\n\n"
        "3\n01:02:05,000 --> 01:02:05,500\nan hour in\n\n"
    )


HOSTILE_TEXTS = [
    "<script>alert(1)</script> & <i>x</i>",
    "one\u0085two\u001cthree\u001dfour\u001efive",
    "line\u2028separator\u2029paragraph\vvertical\fform\rreturn\r\n",
    "\n\n2\n00:00:00,000 --> 00:00:09,000\nforged",
    "nul\u0000 bell\u0007 delete\u007f c1\u009b2J\u009d0;t\u009c",
    "\u001b]52;c;aGk=\u0007\u001b]0;owned\u0007\u001b[2J\u001b]8;;https://evil.example/\u001b\\link\u001b]8;;\u001b\\",
]


def test_srt_of_hostile_text_splits_into_its_cues_alone_and_opens_no_tag() -> None:
    segments = [Segment(start=index, duration=1.0, text=text) for index, text in enumerate(HOSTILE_TEXTS)]
    lines = to_srt(segments).splitlines()
    assert len(lines) == 4 * len(HOSTILE_TEXTS)
    for index in range(len(HOSTILE_TEXTS)):
        number, times, text, blank = lines[4 * index : 4 * index + 4]
        assert (number, blank) == (str(index + 1), "")
        assert " --> " in times and "-->" not in text
        assert "<" not in text and ">" not in text
        assert not any(unicodedata.category(character) == "Cc" for character in text), repr(text)


def test_vtt_of_hostile_text_splits_into_its_cues_alone_and_opens_no_tag() -> None:
    segments = [Segment(start=index, duration=1.0, text=text) for index, text in enumerate(HOSTILE_TEXTS)]
    lines = to_vtt(segments).splitlines()
    assert lines[:2] == ["WEBVTT", ""]
    assert len(lines) == 2 + 3 * len(HOSTILE_TEXTS)
    for index in range(len(HOSTILE_TEXTS)):
        times, text, blank = lines[2 + 3 * index : 5 + 3 * index]
        assert " --> " in times and blank == ""
        assert "-->" not in text and "<" not in text and ">" not in text
        assert not any(unicodedata.category(character) == "Cc" for character in text), repr(text)


def test_vtt_has_its_header_dot_times_and_escapes_markup_and_arrows() -> None:
    assert to_vtt(SEGMENTS) == (
        "WEBVTT\n\n"
        "00:00:00.000 --> 00:00:01.500\nHello there\n\n"
        "00:01:05.250 --> 00:01:07.250\nfirst line second --&gt; line\n\n"
        "01:02:05.000 --> 01:02:05.500\nan hour in\n\n"
    )


def test_the_writers_match_the_server_and_the_node_sdk_byte_for_byte() -> None:
    conformance = json.loads(CONFORMANCE.read_text(encoding="utf-8"))
    segments = [Segment.model_validate(segment) for segment in conformance["segments"]]
    assert to_srt(segments) == conformance["srt"]
    assert to_vtt(segments) == conformance["vtt"]
    timed = [Segment.model_validate(segment) for segment in conformance["words"]["segments"]]
    assert to_srt(timed) == conformance["words"]["srt"]
    assert to_vtt(timed) == conformance["words"]["vtt"]


def test_text_is_one_paragraph_or_one_timestamped_line_per_segment() -> None:
    assert to_text(SEGMENTS) == "Hello there first line second --> line an hour in"
    assert to_text(SEGMENTS, timestamps=True) == (
        "[00:00] Hello there\n[01:05] first line second --> line\n[1:02:05] an hour in"
    )


Cue = Tuple[int, int, str]
"""A cue's start and end in milliseconds, and its text."""

# yt_dlp.webvtt counts time in ticks of MPEG's 90 kHz clock.
TICKS_PER_MILLISECOND = 90


def webvtt_cues(document: str) -> List[Cue]:
    """The cues of a WebVTT document as yt-dlp's parser reads them. The parser keeps a cue's text as written, so its
    character references (``&amp;``, ``&lt;``: WebVTT's are among HTML's) are decoded here."""
    blocks = webvtt.parse_fragment(document.encode())
    assert isinstance(next(blocks), webvtt.Magic)
    return [
        (
            block.start // TICKS_PER_MILLISECOND,
            block.end // TICKS_PER_MILLISECOND,
            html.unescape(block.text.rstrip("\n")),
        )
        for block in blocks
        if isinstance(block, webvtt.CueBlock)
    ]


def segment_cues(segments: Sequence[Segment]) -> List[Cue]:
    """The cue each segment should be: subtitles round its times to the millisecond."""
    return [
        (round(segment.start * 1000), round((segment.start + segment.duration) * 1000), segment.text)
        for segment in segments
    ]


@pytest.mark.parametrize("recorded", ["captioned", "json3Captioned"])
def test_the_servers_webvtt_reads_back_as_the_segments_of_the_same_video(
    client: Verbatim, live: LiveServer, recorded: str
) -> None:
    # captioned has an `&` the document must escape; json3Captioned a literal `&amp;` in its text, escaped again.
    video = live.info["videos"][recorded]
    subtitles = client.transcripts.video(video, format="vtt")
    segments = client.transcripts.video(video, format="segments")
    assert isinstance(subtitles, TranscriptEnvelope) and isinstance(segments, TranscriptEnvelope)
    assert subtitles.data.format == "vtt" and subtitles.data.subtitles is not None
    assert segments.data.segments
    assert webvtt_cues(subtitles.data.subtitles) == segment_cues(segments.data.segments)
    assert subtitles.data.subtitles == to_vtt(segments.data.segments)
