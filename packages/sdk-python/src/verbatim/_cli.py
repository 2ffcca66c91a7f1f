"""``python -m verbatim``: transcripts, metadata, caption languages, channel listings and searches from a terminal,
the same commands and exit codes as the Node SDK's ``npx @verbatim/sdk``.

The key comes from ``VERBATIM_API_KEY`` and the server from ``VERBATIM_BASE_URL``. Results go to stdout (or
``--out``), progress and errors to stderr. The exit code is the error's family: 0 ok, 1 the request (1xxx, and a
command line or key that is wrong), 2 the account (2xxx), 3 the input (3xxx), 4 the content (4xxx), 5 transient
(5xxx, a failed connection, a job still running), 9 Verbatim itself or anything unforeseen.

A transcript's words come from whatever upstream its source read, and may hold a terminal's escape sequences (OSC 52
writes the clipboard, OSC 0 the window title, OSC 8 a disguised link, CSI 2J clears the screen). The server removes
control characters from the segments it reads now; what it stored before still holds them. So nothing printed holds
one, whether it goes to a terminal, a pipe or a file (which a terminal may show later): text, subtitles, rows and
errors show each as U+FFFD, and JSON writes each as a ``\\u`` escape, so it parses to the same data.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Iterable, Sequence
from itertools import islice
from typing import IO, Any, NoReturn, Optional, Union, get_args

import pydantic

from ._exceptions import APIConnectionError, APIError, JobTimeoutError, UnexpectedResponseError, VerbatimError
from ._jobs import JobProgress, WaitOptions
from ._model import ApiModel
from ._transport import api_error
from ._version import __version__
from .formats import to_srt, to_vtt
from .generated.client import Verbatim
from .generated.models import (
    JobCompleted,
    ListRow,
    LiveEndedEvent,
    LiveFailedEvent,
    LiveGapEvent,
    LiveSegmentEvent,
    SearchPlatform,
    TranscriptEnvelope,
    VideoRow,
)
from .generated.requests import (
    ChannelRequestOptions,
    LiveCreateOptions,
    SearchRequestOptions,
    TranscriptRequestOptions,
)

EXIT_OK = 0
EXIT_REQUEST = 1
EXIT_ACCOUNT = 2
EXIT_INPUT = 3
EXIT_CONTENT = 4
EXIT_TRANSIENT = 5
EXIT_OURS = 9

_EXIT_BY_FAMILY = {1: EXIT_REQUEST, 2: EXIT_ACCOUNT, 3: EXIT_INPUT, 4: EXIT_CONTENT, 5: EXIT_TRANSIENT, 9: EXIT_OURS}
_BAR_WIDTH = 30

# A control character other than the tab and the line feed a document is made of: C0, DEL and C1.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# What json.dumps leaves raw: DEL and C1, which a terminal may act on, and U+2028 and U+2029, line breaks to some.
_RAW_IN_JSON = re.compile(r"[\x7f-\x9f\u2028\u2029]")


class UsageError(Exception):
    """The command line cannot be run as given: exit 1, like a request the API refuses."""


class _Parser(argparse.ArgumentParser):
    # argparse exits 2 on a bad command line, which is the account family's code here.
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_REQUEST, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m verbatim",
        description="Transcripts from the Verbatim API. The key comes from VERBATIM_API_KEY, the server from "
        "VERBATIM_BASE_URL.",
        epilog="Exit codes: 0 ok, 1 request, 2 account, 3 input, 4 content, 5 transient, 9 Verbatim or unknown. "
        "A control character in what the server sends (a terminal's escape sequence among them) prints as U+FFFD in "
        "text, subtitles and rows, and as a \\u escape in JSON, to a terminal, a pipe or a file.",
    )
    parser.add_argument("--version", action="version", version=f"verbatim-sdk {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="command", parser_class=_Parser)

    transcript = commands.add_parser("transcript", help="the transcript of a video, episode, feed or media file")
    transcript.add_argument("link", help="a YouTube id or link, a platform link, a podcast or feed, a media URL")
    transcript.add_argument(
        "--format",
        choices=["text", "srt", "vtt", "json"],
        default="text",
        help="text (the default), a subtitle file (srt, vtt), or the API's JSON answer with its segments",
    )
    transcript.add_argument("--translate-to", metavar="LANG", help="translate the captions into this language")
    transcript.add_argument("--language", metavar="LANG", help="the caption language to prefer (en, pt-BR)")
    transcript.add_argument("--mode", choices=["auto", "captions", "audio"], help="where the text may come from")
    transcript.add_argument(
        "--chunk-size",
        type=_chunk_size,
        metavar="N",
        help="print chunks of about N characters (100 to 10000), one JSON object a line, for a language model",
    )
    transcript.add_argument(
        "--words",
        action="store_true",
        help="time each word: cue timestamps in --format vtt, segments[].words in --format json (not text nor srt)",
    )
    transcript.add_argument("--out", metavar="FILE", help="write the result to FILE instead of stdout")
    transcript.add_argument(
        "--live",
        action="store_true",
        help="transcribe a live stream as it plays (a YouTube or Twitch broadcast, an HLS playlist, a radio stream): "
        "each final segment prints as it is heard, --format json prints every event a line; 1 credit per started "
        "minute; Ctrl-C stops the session",
    )
    transcript.add_argument(
        "--max-minutes", type=_positive, metavar="N", help="with --live: stop after N minutes of audio"
    )

    languages = commands.add_parser("languages", help="the caption tracks of a source and their translations (free)")
    languages.add_argument("link", help="a YouTube id or link, or a platform link")
    languages.add_argument("--json", action="store_true", help="print the data as JSON")

    metadata = commands.add_parser(
        "metadata", help="what a source says about an item: title, channel, date, tags, chapters, counts (1 credit)"
    )
    metadata.add_argument("link", help="a YouTube id or link, a platform link, a podcast or feed URL, a media file URL")
    metadata.add_argument("--json", action="store_true", help="print the data as JSON")

    channel = commands.add_parser(
        "channel", help="a channel's uploads, a profile's posts or a feed's episodes, newest first"
    )
    channel.add_argument(
        "channel",
        help="a YouTube @handle, channel URL or UC... id, a TikTok or Instagram profile URL, or a feed (or podcast "
        "page) URL",
    )
    channel.add_argument(
        "--since", metavar="VIDEO_ID", help="stop at this item (a row's videoId or url), the newest one already seen"
    )
    channel.add_argument(
        "--limit", type=_positive, default=50, metavar="N", help="list at most N videos (default 50, one page)"
    )
    channel.add_argument("--json", action="store_true", help="print the rows as JSON")

    search = commands.add_parser("search", help="a search of videos")
    search.add_argument("query", help="the search text")
    search.add_argument(
        "--platform",
        choices=get_args(SearchPlatform),
        help="where to search: youtube (the default), apple or rss (Apple's podcast directory), spotify (where the "
        "server has Spotify's Web API credentials); TikTok and Instagram have no public search",
    )
    search.add_argument("--since", metavar="VIDEO_ID", help="stop at this video: list only the results before it")
    search.add_argument(
        "--limit", type=_positive, default=50, metavar="N", help="list at most N videos (default 50, one page)"
    )
    search.add_argument("--json", action="store_true", help="print the rows as JSON")
    return parser


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of 1 or more")
    return value


def _chunk_size(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 100 <= value <= 10_000:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from 100 to 10000")
    return value


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs one command and answers its exit code."""
    arguments = _parser().parse_args(argv)
    try:
        if not os.environ.get("VERBATIM_API_KEY"):
            raise UsageError("set VERBATIM_API_KEY to your API key (vb_live_...)")
        with Verbatim(timeout=120.0) as client:
            if arguments.command == "transcript":
                _transcript(client, arguments)
            elif arguments.command == "languages":
                _languages(client, arguments.link, arguments.json)
            elif arguments.command == "metadata":
                _metadata(client, arguments.link, arguments.json)
            elif arguments.command == "channel":
                channel_options: ChannelRequestOptions = {"limit": _page_size(arguments)}
                if arguments.since:
                    channel_options["since_video_id"] = arguments.since
                _list(client.transcripts.iter_channel(arguments.channel, **channel_options), arguments)
            else:
                search_options: SearchRequestOptions = {"limit": _page_size(arguments)}
                if arguments.since:
                    search_options["since_video_id"] = arguments.since
                if arguments.platform:
                    search_options["platform"] = arguments.platform
                _list(client.transcripts.iter_search(arguments.query, **search_options), arguments)
    except APIError as error:
        request = f" (request {error.request_id})" if error.request_id else ""
        _fail(f"{error.code} ({error.number}): {error.message}{request}")
        return _EXIT_BY_FAMILY.get(error.number // 1000, EXIT_OURS)
    except (UsageError, pydantic.ValidationError, OSError) as error:
        _fail(str(error))
        return EXIT_REQUEST
    except (APIConnectionError, JobTimeoutError) as error:
        _fail(str(error))
        return EXIT_TRANSIENT
    except VerbatimError as error:
        _fail(str(error))
        return EXIT_OURS
    except KeyboardInterrupt:
        return 130
    except Exception as error:
        _fail(f"unexpected {type(error).__name__}: {error}")
        return EXIT_OURS
    return EXIT_OK


def _transcript(client: Verbatim, arguments: argparse.Namespace) -> None:
    if arguments.live:
        _live(client, arguments)
        return
    if arguments.max_minutes is not None:
        raise UsageError("--max-minutes goes with --live")
    options: TranscriptRequestOptions = {}
    if arguments.format in ("text", "srt", "vtt"):
        options["format"] = arguments.format
    if arguments.translate_to:
        options["translate_to"] = arguments.translate_to
    if arguments.language:
        options["language"] = arguments.language
    if arguments.mode:
        options["mode"] = arguments.mode
    if arguments.chunk_size is not None:
        options["chunk_size"] = arguments.chunk_size
    if arguments.words:
        options["words"] = True
    progress = _Progress(sys.stderr)
    try:
        answer = client.transcripts.video(arguments.link, wait=WaitOptions(on_progress=progress.report), **options)
    finally:
        progress.close()
    if arguments.chunk_size is None or arguments.format == "json":
        _write(_rendered(answer, arguments.format), arguments.out)
    else:
        _write(_chunk_lines(client, answer, arguments.chunk_size), arguments.out)


def _live(client: Verbatim, arguments: argparse.Namespace) -> None:
    """Starts a live session and prints its final segments as they come (every event a JSON line with ``--format
    json``), notes on stderr, until the stream ends; Ctrl-C stops the session, which charges what was heard."""
    if arguments.format not in ("text", "json"):
        raise UsageError("--live prints text or json: subtitles of a stream are never finished")
    others = [name for name in ("translate_to", "mode", "chunk_size", "out") if getattr(arguments, name) is not None]
    if arguments.words:
        others.append("words")
    if others:
        raise UsageError("--live does not take " + ", ".join("--" + name.replace("_", "-") for name in others))
    options: LiveCreateOptions = {}
    if arguments.language:
        options["language"] = arguments.language
    if arguments.max_minutes is not None:
        options["max_minutes"] = arguments.max_minutes
    if arguments.format != "json":
        options["partials"] = False
    session = client.live.start(arguments.link, **options)
    print(_printable(f"live session {session.id}: {arguments.link}"), file=sys.stderr)
    try:
        for event in session.events():
            if arguments.format == "json":
                sys.stdout.write(_json(_wire(event)) + "\n")
            elif isinstance(event, LiveSegmentEvent):
                sys.stdout.write(_printable(event.text) + "\n")
            sys.stdout.flush()
            if isinstance(event, LiveGapEvent):
                print(f"gap: {event.from_} s to {event.to} s not transcribed ({event.reason})", file=sys.stderr)
            elif isinstance(event, LiveEndedEvent):
                print(
                    f"ended ({event.reason}): {event.audio_seconds} s, {_credits(event.credits_spent)}", file=sys.stderr
                )
            elif isinstance(event, LiveFailedEvent):
                raise api_error(_wire(event.error), status=200, request_id=None, retry_after=None)
    except KeyboardInterrupt:
        print(f"stopping live session {session.id}", file=sys.stderr)
        stopped = session.stop().data
        print(f"{stopped.status}: {stopped.audio_seconds} s, {_credits(stopped.credits_spent)}", file=sys.stderr)


def _rendered(answer: Union[TranscriptEnvelope, JobCompleted], output: str) -> str:
    if output == "json":
        return _json(_wire(answer), indent=2)
    if isinstance(answer, JobCompleted):
        # A finished job carries text and segments whatever was asked; its subtitle file is written here.
        job = answer.data
        return _printable(job.text) if output == "text" else (to_srt if output == "srt" else to_vtt)(job.segments)
    data = answer.data
    written = data.text if output == "text" else data.subtitles
    if written is None:
        raise UnexpectedResponseError(200, f"the transcript has no {output} in its answer", answer.request_id)
    return _printable(written)


def _chunk_lines(client: Verbatim, answer: Union[TranscriptEnvelope, JobCompleted], size: int) -> str:
    """The chunks, one JSON object a line. A finished job has text and segments only: its chunks come from the
    library's read of the same transcript, which is free."""
    if isinstance(answer, JobCompleted):
        entry_id = f"{answer.data.platform}:{answer.data.video_id}"
        chunks = client.library.get(entry_id, chunk_size=size).data.chunks
    else:
        chunks = answer.data.chunks
    if chunks is None:
        raise UnexpectedResponseError(200, "the transcript has no chunks in its answer", answer.request_id)
    return "".join(_json(_wire(chunk)) + "\n" for chunk in chunks)


def _languages(client: Verbatim, link: str, as_json: bool) -> None:
    answer = client.transcripts.languages(link)
    if as_json:
        sys.stdout.write(_json(_wire(answer.data), indent=2) + "\n")
        return
    tracks = answer.data
    if not tracks.languages:
        print(
            _printable(
                f"{tracks.video_id} has no caption tracks; speech recognition (--mode audio) would transcribe it"
            ),
            file=sys.stderr,
        )
        return
    print("language\tkind\tname\ttranslations")
    for track in tracks.languages:
        targets = f"{len(track.translation_targets)} translation targets" if track.translatable else "not translatable"
        print(_printable(f"{track.language}\t{track.kind}\t{track.name or '-'}\t{targets}"))


def _metadata(client: Verbatim, link: str, as_json: bool) -> None:
    """An item's metadata as ``field<TAB>value`` lines (what the source does not say left out), its chapters one a
    line (``start<TAB>title``), then its description: what ``npx @verbatim/sdk metadata`` prints."""
    data = client.videos.metadata(link).data
    if as_json:
        sys.stdout.write(_json(_wire(data), indent=2) + "\n")
        return
    stats = data.stats
    fields: list[tuple[str, object]] = [
        ("platform", data.platform),
        ("id", data.video_id),
        ("url", data.url),
        ("title", data.title),
        ("channel", data.channel.name),
        ("channel url", data.channel.url),
        ("duration", None if data.duration is None else _clock(data.duration)),
        ("published", data.published_at),
        ("language", data.language),
        ("views", stats.views if stats else None),
        ("likes", stats.likes if stats else None),
        ("comments", stats.comments if stats else None),
        ("live", data.live_status),
        ("tags", ", ".join(data.tags) or None),
        ("captions", ", ".join(f"{track.language} ({track.kind})" for track in data.captions) or None),
    ]
    lines = [f"{name}\t{value}" for name, value in fields if value is not None]
    if data.chapters:
        lines += ["", "chapters", *(f"{_clock(chapter.start)}\t{chapter.title}" for chapter in data.chapters)]
    if data.description:
        lines += ["", data.description]
    print(_printable("\n".join(lines)))


def _clock(seconds: float) -> str:
    """Seconds as ``m:ss`` or ``h:mm:ss``, as descriptions write chapter times."""
    whole = int(seconds)
    hours, minutes, rest = whole // 3600, whole % 3600 // 60, whole % 60
    return f"{hours}:{minutes:02d}:{rest:02d}" if hours else f"{minutes}:{rest:02d}"


def _page_size(arguments: argparse.Namespace) -> int:
    # Rows come a page at a time, each page charged: pages no larger than the rows wanted.
    return min(int(arguments.limit), 50)


def _list(rows: Iterable[ListRow], arguments: argparse.Namespace) -> None:
    listed = list(islice(rows, arguments.limit))
    if arguments.json:
        sys.stdout.write(_json([_wire(row) for row in listed], indent=2) + "\n")
        return
    for row in listed:
        print(_printable(_row_line(row)))


def _row_line(row: ListRow) -> str:
    """A row as one tab-separated line: id, publication date, title."""
    if isinstance(row, VideoRow):
        return f"{row.videoId}\t{(row.publishedAt or '-')[:10]}\t{row.title}"
    return f"{row.id}\t-\t{row.title}"


def _printable(text: str) -> str:
    """Text for people (a transcript, subtitles, a row, an error), each control character shown as U+FFFD: an escape
    sequence without its introducer is plain text."""
    return _CONTROLS.sub("\ufffd", text)


def _json(value: Any, indent: Optional[int] = None) -> str:
    """A value as JSON that holds no control character: json.dumps escapes C0 itself, and the rest are written as
    ``\\uXXXX`` escapes too, so the data a program parses stays exactly the same."""
    written = json.dumps(value, ensure_ascii=False, indent=indent)
    return _RAW_IN_JSON.sub(lambda match: f"\\u{ord(match.group()):04x}", written)


def _wire(model: ApiModel) -> Any:
    """The answer as the API sent it: only the fields it carried."""
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


def _write(text: str, out: Optional[str]) -> None:
    document = text if text.endswith("\n") else text + "\n"
    if out is None:
        sys.stdout.write(document)
        return
    with open(out, "w", encoding="utf-8") as file:
        file.write(document)
    print(f"wrote {out}", file=sys.stderr)


def _fail(message: str) -> None:
    print(_printable(f"verbatim: {message}"), file=sys.stderr)


class _Progress:
    """A speech job's progress on stderr: a bar redrawn in place on a terminal, else one line per change."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self._terminal = stream.isatty()
        self._last: Optional[str] = None
        self._drawn = False

    def report(self, progress: JobProgress) -> None:
        share = progress.progress
        percent = None if share is None else max(0, min(100, round(share * 100)))
        if self._terminal:
            filled = 0 if percent is None else percent * _BAR_WIDTH // 100
            bar = "#" * filled + "-" * (_BAR_WIDTH - filled)
            shown = "  ?%" if percent is None else f"{percent:3d}%"
            self._stream.write(f"\r[{bar}] {shown} {progress.job_id} {progress.status}")
            self._drawn = True
        else:
            line = f"job {progress.job_id}: {progress.status}" + ("" if percent is None else f" {percent}%")
            if line == self._last:
                return
            self._last = line
            self._stream.write(line + "\n")
        self._stream.flush()

    def close(self) -> None:
        if self._drawn:
            self._stream.write("\n")
            self._stream.flush()


def _credits(count: int) -> str:
    """`1 credit`, `2 credits`."""
    return f"{count} credit{'' if count == 1 else 's'}"
