"""Transcripts as subtitle files and plain text."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import List, Tuple

from .generated.models import Segment


def to_srt(segments: Sequence[Segment]) -> str:
    """SubRip (``.srt``): numbered cues, ``HH:MM:SS,mmm --> HH:MM:SS,mmm``, each followed by a blank line.

    The server's ``format="srt"`` gives the same file.
    """
    return "".join(
        f"{index}\n{_clock(start, ',')} --> {_clock(end, ',')}\n{text}\n\n"
        for index, (start, end, text) in enumerate(_cues(segments), start=1)
    )


def to_vtt(segments: Sequence[Segment]) -> str:
    """WebVTT (``.vtt``): the ``WEBVTT`` header and a blank line, then cues ``HH:MM:SS.mmm --> HH:MM:SS.mmm``.

    Without cues, the header line alone. The server's ``format="vtt"`` gives the same file.
    """
    cues = [
        f"{_clock(start, '.')} --> {_clock(end, '.')}\n{_escape_vtt_text(text)}\n\n"
        for start, end, text in _cues(segments)
    ]
    return f"WEBVTT\n\n{''.join(cues)}" if cues else "WEBVTT\n"


def to_text(segments: Sequence[Segment], *, timestamps: bool = False) -> str:
    """Plain text: the segments joined by spaces, or with ``timestamps`` one line per segment prefixed ``[mm:ss]``."""
    if not timestamps:
        return " ".join(_one_line(segment.text) for segment in segments)
    return "\n".join(f"[{_short_clock(segment.start)}] {_one_line(segment.text)}" for segment in segments)


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _cues(segments: Sequence[Segment]) -> List[Tuple[float, float, str]]:
    """One cue per segment with words, its text on one line: a blank line inside a cue would end it early."""
    cues = [(segment.start, segment.start + segment.duration, _one_line(segment.text)) for segment in segments]
    return [cue for cue in cues if cue[2]]


def _escape_vtt_text(text: str) -> str:
    """WebVTT cue text is markup: ``&``, ``<`` and ``>`` become character references, which also keeps ``-->`` out."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _clock(seconds: float, fraction_separator: str) -> str:
    # Halves round up, as JavaScript's Math.round does on the server: Python's round() would round them to even.
    total_ms = max(0, math.floor(seconds * 1000 + 0.5))
    hours, rest = divmod(total_ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    secs, ms = divmod(rest, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}{fraction_separator}{ms:03d}"


def _short_clock(seconds: float) -> str:
    hours, rest = divmod(max(0, int(seconds)), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"
