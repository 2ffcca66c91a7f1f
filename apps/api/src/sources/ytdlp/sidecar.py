"""The warm yt-dlp engine of Verbatim (apps/api/src/sources/ytdlp/ytdlp-sidecar.ts starts it).

One long-lived process imports yt_dlp once and answers requests read as JSON lines on stdin with
JSON lines on stdout, each request on a thread of its own so a slow platform holds up nothing
else. A request is `{"id": n, "op": ..., ...}`; its answer `{"id": n, "ok": true, "result": ...}`
or `{"id": n, "ok": false, "error": {...}}`, both with the `warnings` yt-dlp gave. The first line
written is `{"event": "ready", ...}`. `{"op": "cancel", "id": n}` asks a download to stop at its
next block and is not answered.

Started as `python sidecar.py --extractors TikTok,TikTokUser,Vimeo,... [--list-extractors TikTokUser,...]
[--socket-timeout S] [--ca-file PEM]`: the allowed extractors, and which of them list. Item calls
(`extract`, `download_audio`) use the others, `list_entries` those, and neither reaches the
other's.
"""

import argparse
import base64
import http.client
import io
import json
import os
import re
import sys
import threading
import urllib.parse

# stdout is the protocol channel. Everything else that writes to it (yt-dlp's screen output, a
# print in a library, a child process inheriting fd 1) is sent to stderr instead, which the
# service logs: fd 1 itself is pointed at stderr, and the protocol keeps a duplicate of the
# original.
_protocol = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
os.dup2(2, 1)
sys.stdout = sys.stderr
# Plugins are code from directories outside this project that yt-dlp would import and run.
os.environ["YTDLP_NO_PLUGINS"] = "1"


def _trust_extra_ca(extra_pem_path):
    """Makes yt-dlp trust `extra_pem_path` besides the system's roots.

    OpenSSL takes one default bundle file (SSL_CERT_FILE), so a bundle of both is written to a
    temporary file and named there before any TLS context exists; every request handler of
    yt-dlp loads the default paths when it makes its context (`ssl_load_certs`), unless it
    prefers certifi's bundle, which the `no-certifi` compat option turns off.
    """
    import atexit
    import ssl
    import tempfile

    defaults = ssl.get_default_verify_paths()
    parts = []
    for system_bundle in (defaults.cafile, defaults.openssl_cafile):
        if system_bundle and os.path.isfile(system_bundle):
            with open(system_bundle, "rb") as file:
                parts.append(file.read())
            break
    with open(extra_pem_path, "rb") as file:
        parts.append(file.read())
    bundle = tempfile.NamedTemporaryFile(prefix="verbatim-ca-", suffix=".pem", delete=False)
    with bundle:
        bundle.write(b"\n".join(parts))
    atexit.register(os.unlink, bundle.name)
    os.environ["SSL_CERT_FILE"] = bundle.name


_options = argparse.ArgumentParser()
_options.add_argument("--extractors", default="")
_options.add_argument("--list-extractors", default="")
_options.add_argument("--socket-timeout", type=float, default=20.0)
_options.add_argument("--ca-file")
_arguments = _options.parse_args()
if _arguments.ca_file:
    _trust_extra_ca(_arguments.ca_file)

import yt_dlp  # noqa: E402  (after the stdout, plugin and certificate settings above)
import yt_dlp.globals  # noqa: E402
from yt_dlp.extractor import gen_extractor_classes  # noqa: E402
from yt_dlp.networking import Request, Response, common  # noqa: E402
from yt_dlp.networking.exceptions import HTTPError, IncompleteRead  # noqa: E402
from yt_dlp.utils import DownloadError, ExtractorError, UnsupportedError, bug_reports_message  # noqa: E402
from yt_dlp.utils.networking import std_headers  # noqa: E402
from yt_dlp.version import __version__ as _ytdlp_version  # noqa: E402

yt_dlp.globals.plugin_dirs.value = []


def _share_tls_contexts():
    """Makes every call share the TLS contexts yt-dlp makes instead of making its own.

    Each call's YoutubeDL makes its SSL context afresh, and loading the trusted roots into one
    (`ssl_load_certs`) took about 40 ms of CPU with OpenSSL 3.0, more than the rest of an
    extraction (bench/platforms.ts measures a call). A context depends only on its arguments
    (verification, legacy TLS, certifi, a client certificate) and on the environment, which is set
    before any exists; many connections at once sharing one is what an SSLContext is for. The
    trusted roots are read once, so a change to them takes a restart of the sidecar.
    """
    import functools

    common.make_ssl_context = functools.cache(common.make_ssl_context)


_share_tls_contexts()


def _is_generic(extractor):
    # The generic extractor reads any page of any host, which is what the allow-list is there to stop.
    return extractor.ie_key() == "Generic" or extractor.IE_NAME.lower().split(":")[0] == "generic"


_extractor_classes = {extractor.ie_key(): extractor for extractor in gen_extractor_classes()}


def _keys(listed):
    return [key.strip() for key in listed.split(",") if key.strip()]


def _usable(keys):
    return {
        key: _extractor_classes[key]
        for key in keys
        if key in _extractor_classes and not _is_generic(_extractor_classes[key])
    }


_requested = _keys(_arguments.extractors)
_listing_keys = set(_keys(_arguments.list_extractors))
# One URL is one item for these: a playlist or profile they are handed is refused, not walked.
_allowed = _usable([key for key in _requested if key not in _listing_keys])
# These list a profile's entries, each left unresolved (a URL the item calls read later).
_list_extractors = _usable([key for key in _requested if key in _listing_keys])
_refused = [key for key in _requested if key in _extractor_classes and key not in _allowed and key not in _list_extractors]
_unknown = [key for key in _requested if key not in _extractor_classes]


class ExtractorNotAllowed(ExtractorError):
    """An extractor outside the allow-list was asked for, by a URL or by another extractor."""

    def __init__(self, key):
        super().__init__(f"The {key} extractor is not allowed on this server", expected=True)


class FileTooLarge(Exception):
    """The download passed the byte limit of its request."""

    def __init__(self, limit):
        super().__init__(f"The media is larger than {limit} bytes")


class LiveStream(Exception):
    """A download of an item that is live now: there is no recording to download yet."""

    def __init__(self, info):
        super().__init__(
            f"[{info.get('extractor_key')}] {info.get('id')}: The item is live now; there is no recording yet"
        )


class CallCancelled(Exception):
    """The caller gave up on the call (its deadline passed or it was aborted)."""

    def __init__(self):
        super().__init__("The call was cancelled")


class _AllowListYoutubeDL(yt_dlp.YoutubeDL):
    # Extractors may fetch another extractor by key (`_extract_generic_embeds` asks for Generic);
    # only those the call allows are handed out.
    def __init__(self, params, extractors):
        self._call_extractors = extractors
        super().__init__(params)

    def get_info_extractor(self, ie_key):
        if ie_key not in self._call_extractors:
            raise ExtractorNotAllowed(ie_key)
        return super().get_info_extractor(ie_key)


class _CallLogger:
    """Keeps one call's warnings for its answer instead of printing them."""

    def __init__(self):
        self.warnings = []

    def debug(self, message):
        pass

    def info(self, message):
        pass

    def warning(self, message):
        self.warnings.append(message)

    def error(self, message):
        pass


def _youtube_dl(request, logger, extra=None, extractors=None, handed_out=None):
    extractors = _allowed if extractors is None else extractors
    params = {
        "ignoreconfig": True,
        "cookiefile": None,
        "noplaylist": True,
        "allowed_extractors": [re.escape(extractor.IE_NAME.lower()) for extractor in extractors.values()],
        "socket_timeout": _arguments.socket_timeout,
        "quiet": True,
        "no_warnings": True,
        "noprogress": True,
        "logger": logger,
        "color": {"stdout": "no_color", "stderr": "no_color"},
        # The cache writes under the home directory, which a service's user may not have.
        "cachedir": False,
        "compat_opts": {"no-certifi"} if _arguments.ca_file else set(),
    }
    # A string, the empty one included (a direct connection), is the caller's decision; without
    # one yt-dlp takes the process's environment proxies.
    if isinstance(request.get("proxy"), str):
        params["proxy"] = request["proxy"]
    params.update(extra or {})
    return _AllowListYoutubeDL(params, extractors if handed_out is None else handed_out)


def _check_supported(url, extractors=None):
    extractors = _allowed if extractors is None else extractors
    if not isinstance(url, str) or not any(extractor.suitable(url) for extractor in extractors.values()):
        raise UnsupportedError(url if isinstance(url, str) else repr(url))


def _usable_in_order():
    """The allowed extractors, items and listings alike, in the order they were asked for."""
    return [key for key in _requested if key in _allowed or key in _list_extractors]


def _version(request, logger, cancelled):
    return {"version": _ytdlp_version, "extractors": _usable_in_order()}


# Several extractors (TikTok, Loom, Facebook) list an item's subtitles only when they are to be
# written; nothing is written without a download, so asking costs no file.
_listing_subtitles = {"writesubtitles": True, "writeautomaticsub": True, "subtitleslangs": ["all"]}


def _extract(request, logger, cancelled):
    _check_supported(request.get("url"))
    with _youtube_dl(request, logger, _listing_subtitles) as ydl:
        return ydl.sanitize_info(ydl.extract_info(request["url"], download=False))


def _list_entries(request, logger, cancelled):
    """
    Entries `start` to `start + count` (0-based, end excluded) of a profile, newest first, as its
    extractor lists them: each unresolved (its URL, id, title and what the listing itself says),
    so a page costs the listing's own requests and never one per entry.
    """
    _check_supported(request.get("url"), _list_extractors)
    start = int(request["start"])
    count = int(request["count"])
    extra = {
        "noplaylist": False,
        "extract_flat": "in_playlist",
        "playlist_items": f"{start + 1}-{start + count}",
    }
    # A listing names each entry's extractor, which yt-dlp looks up but does not run (extract_flat).
    with _youtube_dl(request, logger, extra, _list_extractors, {**_allowed, **_list_extractors}) as ydl:
        info = ydl.sanitize_info(ydl.extract_info(request["url"], download=False))
    if cancelled.is_set():
        raise CallCancelled()
    entries = [entry for entry in info.get("entries") or [] if isinstance(entry, dict)]
    return {"id": info.get("id"), "title": info.get("title"), "entries": entries[:count]}


def _declared_length(headers):
    """The Content-Length, when the bytes read are the bytes sent: no content coding was undone."""
    if (headers.get("Content-Encoding") or "identity").strip().lower() != "identity":
        return None
    try:
        return int(headers.get("Content-Length"))
    except (TypeError, ValueError):
        return None


def _read_body(response, limit, cancelled, already_read=0):
    """
    All of a response's body: FileTooLarge once `already_read` and its bytes pass `limit`,
    IncompleteRead when it ends short of its Content-Length.
    """
    declared = _declared_length(response.headers)
    if declared is not None and already_read + declared > limit:
        raise FileTooLarge(limit)
    chunks = []
    size = 0
    while True:
        if cancelled.is_set():
            raise CallCancelled()
        chunk = response.read(64 * 1024)
        if not chunk:
            break
        size += len(chunk)
        if already_read + size > limit:
            raise FileTooLarge(limit)
        chunks.append(chunk)
    # http.client reads a connection closed early (the egress guard ending it at its byte cap) as
    # the end of the body; only the declared length tells the two apart.
    if declared is not None and size < declared:
        raise IncompleteRead(partial=size, expected=declared - size)
    return b"".join(chunks)


def _decoded(body, headers):
    charset = headers.get_content_charset() if hasattr(headers, "get_content_charset") else None
    return body.decode(charset or "utf-8-sig", errors="replace")


def _fetch_text(request, logger, cancelled):
    limit = int(request["max_bytes"])
    with _youtube_dl(request, logger) as ydl, ydl.urlopen(Request(request["url"])) as response:
        body = _read_body(response, limit, cancelled)
        return {"text": _decoded(body, response.headers)}


def _kept_alive_connection(scheme, host, port, proxy):
    """
    One connection to host:port that http.client keeps open between requests (yt-dlp's urllib
    handler closes each), through a CONNECT tunnel of `proxy` when one is named.
    """
    timeout = _arguments.socket_timeout
    if scheme == "https":
        context = common.make_ssl_context(verify=True, legacy_support=False, use_certifi=not _arguments.ca_file)

        def connect(to_host, to_port):
            return http.client.HTTPSConnection(to_host, to_port, timeout=timeout, context=context)
    elif scheme == "http":

        def connect(to_host, to_port):
            return http.client.HTTPConnection(to_host, to_port, timeout=timeout)
    else:
        raise UnsupportedError(f"{scheme}://{host}")
    if not proxy:
        return connect(host, port)
    proxy_address = urllib.parse.urlsplit(proxy)
    if proxy_address.scheme != "http":
        raise ValueError(f"Only an http:// proxy carries fetch_texts, not {proxy_address.scheme}://")
    tunnel_headers = {}
    if proxy_address.username is not None:
        credential = (
            f"{urllib.parse.unquote(proxy_address.username)}:{urllib.parse.unquote(proxy_address.password or '')}"
        )
        tunnel_headers["Proxy-Authorization"] = f"Basic {base64.b64encode(credential.encode()).decode()}"
    connection = connect(proxy_address.hostname, proxy_address.port or 80)
    connection.set_tunnel(host, port, tunnel_headers)
    return connection


def _fetch_texts(request, logger, cancelled):
    """
    Files of one origin in turn over one kept-alive connection (an HLS playlist's pieces): not a
    tunnel and a TLS handshake each. Within `max_bytes` together; a redirect or any answer but 200
    fails the call.
    """
    limit = int(request["max_bytes"])
    addresses = [urllib.parse.urlsplit(url) for url in request["urls"]]
    origins = {(address.scheme, address.hostname, address.port) for address in addresses}
    if len(origins) != 1:
        raise ValueError("fetch_texts reads the files of one origin")
    scheme, host, port = origins.pop()
    connection = _kept_alive_connection(scheme, host, port or (443 if scheme == "https" else 80), request.get("proxy"))
    texts = []
    read = 0
    try:
        for url, address in zip(request["urls"], addresses):
            if cancelled.is_set():
                raise CallCancelled()
            target = urllib.parse.urlunsplit(("", "", address.path or "/", address.query, ""))
            connection.request("GET", target, headers=dict(std_headers))
            response = connection.getresponse()
            if response.status != 200:
                raise HTTPError(
                    Response(io.BytesIO(), url, dict(response.getheaders()), response.status, response.reason)
                )
            body = _read_body(response, limit, cancelled, read)
            read += len(body)
            texts.append(_decoded(body, response.headers))
    finally:
        connection.close()
    return {"texts": texts}


def _download_audio(request, logger, cancelled):
    _check_supported(request.get("url"))
    limit = int(request["max_bytes"])
    touched = set()

    def hold_limits(status):
        for key in ("tmpfilename", "filename"):
            if status.get(key):
                touched.add(status[key])
        if cancelled.is_set():
            raise CallCancelled()
        # `total_bytes` is the Content-Length when the server sent one; the bytes read so far
        # hold the limit when it did not.
        if (status.get("total_bytes") or 0) > limit or (status.get("downloaded_bytes") or 0) > limit:
            raise FileTooLarge(limit)

    def refuse_live(info, *, incomplete=False):
        # A live stream's download would run until the byte limit, on sound still to come.
        if info.get("is_live") or info.get("live_status") in ("is_live", "is_upcoming"):
            raise LiveStream(info)
        return None

    # One file as the platform serves it: no merging, no post-processing, so no ffmpeg.
    extra = {
        "format": "bestaudio/worstaudio*",
        "paths": {"home": request["directory"], "temp": request["directory"]},
        "outtmpl": {"default": "%(extractor_key)s-%(id)s-%(format_id)s.%(ext)s"},
        "restrictfilenames": True,
        "overwrites": True,
        "continuedl": False,
        "postprocessors": [],
        "fixup": "never",
        "hls_prefer_native": True,
        "progress_hooks": [hold_limits],
        "match_filter": refuse_live,
        "retries": 2,
        "fragment_retries": 2,
    }
    try:
        with _youtube_dl(request, logger, extra) as ydl:
            info = ydl.sanitize_info(ydl.extract_info(request["url"], download=True))
    except BaseException:
        for path in touched:
            for leftover in (path, f"{path}.part", f"{path}.ytdl"):
                if os.path.isfile(leftover):
                    os.unlink(leftover)
        raise
    path = (info.get("requested_downloads") or [{}])[0].get("filepath")
    if not path or not os.path.isfile(path):
        raise DownloadError("yt-dlp finished without writing the media file")
    return {"path": path, "bytes": os.path.getsize(path), "info": info}


_operations = {
    "version": _version,
    "extract": _extract,
    "fetch_text": _fetch_text,
    "fetch_texts": _fetch_texts,
    "download_audio": _download_audio,
    "list_entries": _list_entries,
}
_write_lock = threading.Lock()
_cancellations = {}
_cancellations_lock = threading.Lock()


def _write(message):
    try:
        line = json.dumps(message, ensure_ascii=True, allow_nan=False, default=str)
    except ValueError as error:
        line = json.dumps({"id": message.get("id"), "ok": False, "error": _described(error)}, default=str)
    with _write_lock:
        _protocol.write(line + "\n")
        _protocol.flush()


def _described(error):
    wrapper = error
    # yt-dlp raises DownloadError while handling the extractor's own error (its context); its
    # `exc_info` is the innermost one, an ExtractorError's cause.
    if isinstance(error, DownloadError):
        if isinstance(error.__context__, Exception):
            error = error.__context__
        elif error.exc_info and error.exc_info[1] is not None:
            error = error.exc_info[1]
    cause = getattr(error, "cause", None) or error.__cause__
    status = None
    link = error
    while link is not None and status is None:
        if isinstance(link, HTTPError):
            status = link.status
        link = getattr(link, "cause", None) or link.__cause__
    message = str(error).replace(bug_reports_message(), "")
    if error is wrapper and isinstance(error, DownloadError):
        message = message.removeprefix("ERROR: ")
    return {
        "type": type(error).__name__,
        "cause": type(cause).__name__ if cause is not None else None,
        "status": status,
        "message": message,
        "expected": bool(getattr(error, "expected", False))
        or isinstance(error, (FileTooLarge, LiveStream, CallCancelled)),
    }


def _answer(request, cancelled):
    call_id = request.get("id")
    logger = _CallLogger()
    try:
        operation = _operations.get(request.get("op"))
        if operation is None:
            raise ValueError(f"Unknown operation {request.get('op')!r}")
        result = operation(request, logger, cancelled)
        _write({"id": call_id, "ok": True, "result": result, "warnings": logger.warnings})
    except BaseException as error:  # noqa: BLE001  (every failure is the caller's answer)
        _write({"id": call_id, "ok": False, "error": _described(error), "warnings": logger.warnings})
    finally:
        with _cancellations_lock:
            _cancellations.pop(call_id, None)


def _main():
    _write(
        {
            "event": "ready",
            "version": _ytdlp_version,
            "extractors": _usable_in_order(),
            "refused": _refused,
            "unknown": _unknown,
        }
    )
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        with _cancellations_lock:
            if request.get("op") == "cancel":
                if request.get("id") in _cancellations:
                    _cancellations[request["id"]].set()
                continue
            cancelled = _cancellations[request.get("id")] = threading.Event()
        threading.Thread(target=_answer, args=(request, cancelled), daemon=True).start()
    # Threads still waiting on a platform would otherwise keep the process alive.
    _protocol.flush()
    os._exit(0)


_main()
