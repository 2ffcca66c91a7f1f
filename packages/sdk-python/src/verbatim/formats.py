"""Transcripts as subtitle files and plain text."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .generated.models import Segment


def to_srt(segments: Sequence[Segment]) -> str:
    """SubRip (``.srt``): numbered cues with ``00:00:01,500 --> 00:00:04,000`` times."""
    cues = [
        f"{index}\n{_clock(segment.start, ',')} --> {_clock(segment.start + segment.duration, ',')}\n"
        f"{_cue_text(segment.text)}\n"
        for index, segment in enumerate(segments, start=1)
    ]
    return "\n".join(cues)


def to_vtt(segments: Sequence[Segment]) -> str:
    """WebVTT (``.vtt``): a ``WEBVTT`` header and cues with ``00:00:01.500 --> 00:00:04.000`` times."""
    cues = [
        f"{_clock(segment.start, '.')} --> {_clock(segment.start + segment.duration, '.')}\n"
        f"{_cue_text(segment.text).replace('-->', '->')}\n"
        for segment in segments
    ]
    return "\n".join(["WEBVTT\n", *cues])


def to_text(segments: Sequence[Segment], *, timestamps: bool = False) -> str:
    """Plain text: the segments joined by spaces, or with ``timestamps`` one line per segment prefixed ``[mm:ss]``."""
    if not timestamps:
        return " ".join(_one_line(segment.text) for segment in segments)
    return "\n".join(f"[{_short_clock(segment.start)}] {_one_line(segment.text)}" for segment in segments)


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _cue_text(text: str) -> str:
    """A cue's text on as many lines as it has, without the blank lines that would end the cue early."""
    return "\n".join(line.strip() for line in text.splitlines() if line.strip())


def _clock(seconds: float, fraction_separator: str) -> str:
    total_ms = max(0, round(seconds * 1000))
    hours, rest = divmod(total_ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    secs, ms = divmod(rest, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}{fraction_separator}{ms:03d}"


def _short_clock(seconds: float) -> str:
    hours, rest = divmod(max(0, int(seconds)), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"
