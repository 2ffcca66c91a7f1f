"""Transcripts as subtitle files and plain text."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import List, Tuple

from .generated.models import Segment


def to_srt(segments: Sequence[Segment]) -> str:
    """SubRip (``.srt``): numbered cues, ``HH:MM:SS,mmm --> HH:MM:SS,mmm``, each followed by a blank line.

    A cue's text is one line, with ``<`` and ``>`` written ``&lt;`` and ``&gt;``. The server's ``format="srt"``
    gives the same file.
    """
    return "".join(
        f"{index}\n{_clock(start, ',')} --> {_clock(end, ',')}\n{_escape_srt_text(text)}\n\n"
        for index, (start, end, text) in enumerate(_cues(segments), start=1)
    )


def to_vtt(segments: Sequence[Segment]) -> str:
    """WebVTT (``.vtt``): the ``WEBVTT`` header and a blank line, then cues ``HH:MM:SS.mmm --> HH:MM:SS.mmm``.

    Without cues, the header line alone. A segment that carries ``words`` (the server's ``words=True``) has a cue
    timestamp (``<HH:MM:SS.mmm>``) before each word that starts after the cue, after the word before it, and before
    the cue ends, as WebVTT allows: players that highlight words read them. The server's ``format="vtt"`` gives the
    same file.
    """
    cues = [
        f"{_clock(segment.start, '.')} --> {_clock(segment.start + segment.duration, '.')}\n"
        f"{_vtt_cue_text(segment)}\n\n"
        for segment in segments
        if _one_line(segment.text)
    ]
    return f"WEBVTT\n\n{''.join(cues)}" if cues else "WEBVTT\n"


def to_text(segments: Sequence[Segment], *, timestamps: bool = False) -> str:
    """Plain text: the segments joined by spaces, or with ``timestamps`` one line per segment prefixed ``[mm:ss]``."""
    if not timestamps:
        return " ".join(_one_line(segment.text) for segment in segments)
    return "\n".join(f"[{_short_clock(segment.start)}] {_one_line(segment.text)}" for segment in segments)


# What a reader may take for a line break or a blank: JavaScript's \s (the Node SDK's and the server's writers), and
# the separators str.splitlines() breaks lines at besides. Python's own \s differs from both (it has U+001F, not
# U+FEFF), so the set is written out: every writer folds the same characters.
_BLANKS = re.compile(r"[\t\n\v\f\r \x1c-\x1e\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+")
# Every other control character (C0, DEL, C1): a terminal or a player may act on it.
_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1b\x1f\x7f-\x84\x86-\x9f]")


def _one_line(text: str) -> str:
    """The text as one line of words: control characters removed, each run of blanks (line breaks of every kind
    included) one space. So no text can end a cue, start another, or reach a terminal as a command."""
    return _BLANKS.sub(" ", _CONTROLS.sub("", text)).strip(" ")


def _cues(segments: Sequence[Segment]) -> List[Tuple[float, float, str]]:
    """One cue per segment with words, its text on one line: a blank line inside a cue would end it early."""
    cues = [(segment.start, segment.start + segment.duration, _one_line(segment.text)) for segment in segments]
    return [cue for cue in cues if cue[2]]


def _vtt_cue_text(segment: Segment) -> str:
    """A WebVTT cue's text: its words, each after the cue timestamp of its start where WebVTT admits one (after the
    cue's start and the timestamp before it, before the cue's end, to the millisecond); without words, its text."""
    words = [(_one_line(word.text), word.start) for word in segment.words or []]
    words = [(text, start) for text, start in words if text]
    if not words:
        return _escape_vtt_text(_one_line(segment.text))
    cue_end = _milliseconds(segment.start + segment.duration)
    latest = _milliseconds(segment.start)
    written = []
    for text, start in words:
        at = _milliseconds(start)
        timestamp = ""
        if latest < at < cue_end:
            timestamp = f"<{_clock(start, '.')}>"
            latest = at
        written.append(f"{timestamp}{_escape_vtt_text(text)}")
    return " ".join(written)


def _escape_srt_text(text: str) -> str:
    """SubRip readers take ``<`` for a tag: ``<`` and ``>`` become HTML's references, which also keeps ``-->`` out."""
    return text.replace("<", "&lt;").replace(">", "&gt;")


def _escape_vtt_text(text: str) -> str:
    """WebVTT cue text is markup: ``&``, ``<`` and ``>`` become character references, which also keeps ``-->`` out."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _milliseconds(seconds: float) -> int:
    # Halves round up, as JavaScript's Math.round does on the server: Python's round() would round them to even.
    return math.floor(seconds * 1000 + 0.5)


def _clock(seconds: float, fraction_separator: str) -> str:
    total_ms = max(0, _milliseconds(seconds))
    hours, rest = divmod(total_ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    secs, ms = divmod(rest, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}{fraction_separator}{ms:03d}"


def _short_clock(seconds: float) -> str:
    hours, rest = divmod(max(0, int(seconds)), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"
