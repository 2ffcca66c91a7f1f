"""Each operation of the API as a ``Call``: its method, path, body and how its answer parses. The sync and async
clients send the same calls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Generic, Optional, Type, TypeVar, Union
from urllib.parse import quote

from pydantic import TypeAdapter

from ._model import ApiModel
from .generated.models import (
    BatchRequest,
    BatchResultEnvelope,
    CaptionLanguagesEnvelope,
    ChannelRequest,
    CreatedMonitorEnvelope,
    DeepHealthEnvelope,
    HealthEnvelope,
    JobAccepted,
    JobCompleted,
    JobFailed,
    JobProcessing,
    JobStatus,
    LanguagesRequest,
    LibraryPageEnvelope,
    LibrarySearchPageEnvelope,
    LibrarySearchRequest,
    LibraryTranscriptEnvelope,
    LiveCreate,
    LiveSessionDetailEnvelope,
    LiveSessionEnvelope,
    LiveSessionListEnvelope,
    MeEnvelope,
    MetadataRequest,
    MonitorCheckEnvelope,
    MonitorCreate,
    MonitorDeletedEnvelope,
    MonitorEnvelope,
    MonitorEventListEnvelope,
    MonitorListEnvelope,
    MonitorUpdate,
    PlaylistRequest,
    SearchRequest,
    TranscriptEnvelope,
    TranscriptRequest,
    UsageReportEnvelope,
    VideoMetadataEnvelope,
    VideoPageEnvelope,
)
from .generated.requests import REQUEST_LEADS, WIRE_NAMES

Answer = TypeVar("Answer")
RequestModel = TypeVar("RequestModel", bound=ApiModel)
ResponseModel = TypeVar("ResponseModel", bound=ApiModel)
JobState = Union[JobProcessing, JobCompleted, JobFailed]
"""A job's state, as ``GET /transcripts/jobs/{job_id}`` answers it."""

TranscriptInput = Union[TranscriptRequest, Mapping[str, Any], str]
"""A transcript request: just the ``video`` (an id or URL) with the other fields as keyword arguments, or the whole
request as its model or a dict of its fields."""
LanguagesInput = Union[LanguagesRequest, Mapping[str, Any], str]
MetadataInput = Union[MetadataRequest, Mapping[str, Any], str]
BatchInput = Union[BatchRequest, Mapping[str, Any], Sequence[str]]
"""A batch: the ``video_ids``, or the whole request as its model or a dict."""
ChannelInput = Union[ChannelRequest, Mapping[str, Any], str]
PlaylistInput = Union[PlaylistRequest, Mapping[str, Any], str]
SearchInput = Union[SearchRequest, Mapping[str, Any], str]
LibrarySearchInput = Union[LibrarySearchRequest, Mapping[str, Any], str]
MonitorCreateInput = Union[MonitorCreate, Mapping[str, Any], str]
MonitorUpdateInput = Union[MonitorUpdate, Mapping[str, Any]]
LiveCreateInput = Union[LiveCreate, Mapping[str, Any], str]
"""A live session: just the stream's ``url`` with the other fields as keyword arguments, or the whole request."""


@dataclass(frozen=True)
class Call(Generic[Answer]):
    """One request of an operation, and how its successful answer becomes a model."""

    method: str
    path: str
    parse: Callable[[int, Any], Answer]
    json: Optional[Dict[str, Any]] = None
    params: Dict[str, Union[str, int]] = field(default_factory=dict)


def parse_as(model: Type[ResponseModel]) -> Callable[[int, Any], ResponseModel]:
    """A parser of every successful status into one model."""
    return lambda _status, body: model.model_validate(body)


# JobStatus is a union discriminated by `status`, which only a TypeAdapter validates.
_job_states: TypeAdapter[JobState] = TypeAdapter(JobStatus)


def _job_state(_status: int, body: Any) -> JobState:
    return _job_states.validate_python(body)


def body_of(
    model_type: Type[RequestModel],
    request: Union[RequestModel, Mapping[str, Any], str, Sequence[str], None],
    options: Optional[Mapping[str, Any]] = None,
) -> Dict[str, Any]:
    """The JSON body of a request: given whole as its model or a dict, or as the value of the field the method takes
    first (``REQUEST_LEADS``) with the others as keyword ``options``. Only the fields given are sent, so a ``None``
    sent clears and an omitted field is kept.
    """
    options = options or {}
    if isinstance(request, (model_type, Mapping)):
        if options:
            raise TypeError(
                f"{model_type.__name__} given whole, as a model or a dict, takes no keyword arguments beside it: "
                f"{', '.join(sorted(options))}"
            )
        model = request if isinstance(request, model_type) else model_type.model_validate(request)
    else:
        # The models keep fields they do not know (for answers of newer servers); a keyword argument is checked here.
        fields = model_type.model_fields
        known = set(fields) | {info.alias for info in fields.values() if info.alias}
        unknown = sorted(set(options) - known)
        if unknown:
            raise TypeError(f"{model_type.__name__} has no field {', '.join(unknown)}")
        lead = REQUEST_LEADS[model_type.__name__]
        given = dict(options) if request is None or lead is None else {lead: request, **options}
        model = model_type.model_validate(given)
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


def _transcript_answer(status: int, body: Any) -> Union[TranscriptEnvelope, JobAccepted]:
    if status == 202:
        return JobAccepted.model_validate(body)
    return TranscriptEnvelope.model_validate(body)


Options = Mapping[str, Any]


def video(request: TranscriptInput, options: Options) -> Call[Union[TranscriptEnvelope, JobAccepted]]:
    body = body_of(TranscriptRequest, request, options)
    return Call("POST", "/transcripts/video", _transcript_answer, json=body)


def asks_words(call: Call[Any]) -> bool:
    """Whether the request asks for word times (``words=True``): a job it starts is then polled for them."""
    return (call.json or {}).get("words") is True


def languages(request: LanguagesInput) -> Call[CaptionLanguagesEnvelope]:
    body = body_of(LanguagesRequest, request)
    return Call("POST", "/transcripts/languages", parse_as(CaptionLanguagesEnvelope), json=body)


def metadata(request: MetadataInput) -> Call[VideoMetadataEnvelope]:
    body = body_of(MetadataRequest, request)
    return Call("POST", "/videos/metadata", parse_as(VideoMetadataEnvelope), json=body)


def batch(request: BatchInput, options: Options) -> Call[BatchResultEnvelope]:
    body = body_of(BatchRequest, request, options)
    return Call("POST", "/transcripts/batch", parse_as(BatchResultEnvelope), json=body)


def channel(request: ChannelInput, options: Options) -> Call[VideoPageEnvelope]:
    body = body_of(ChannelRequest, request, options)
    return Call("POST", "/transcripts/channel", parse_as(VideoPageEnvelope), json=body)


def playlist(request: PlaylistInput, options: Options) -> Call[VideoPageEnvelope]:
    body = body_of(PlaylistRequest, request, options)
    return Call("POST", "/transcripts/playlist", parse_as(VideoPageEnvelope), json=body)


def search(request: SearchInput, options: Options) -> Call[VideoPageEnvelope]:
    body = body_of(SearchRequest, request, options)
    return Call("POST", "/transcripts/search", parse_as(VideoPageEnvelope), json=body)


def job(job_id: str, words: bool = False) -> Call[JobState]:
    params: Dict[str, Union[str, int]] = {"words": "true"} if words else {}
    return Call("GET", f"/transcripts/jobs/{_segment(job_id)}", _job_state, params=params)


def library(limit: Optional[int], cursor: Optional[str]) -> Call[LibraryPageEnvelope]:
    return Call("GET", "/library", parse_as(LibraryPageEnvelope), params=_present({"limit": limit, "cursor": cursor}))


def library_transcript(entry_id: str, query: Options) -> Call[LibraryTranscriptEnvelope]:
    return Call("GET", f"/library/{_segment(entry_id)}", parse_as(LibraryTranscriptEnvelope), params=_query(query))


def search_library(request: LibrarySearchInput, options: Options) -> Call[LibrarySearchPageEnvelope]:
    body = body_of(LibrarySearchRequest, request, options)
    return Call("POST", "/library/search", parse_as(LibrarySearchPageEnvelope), json=body)


def me() -> Call[MeEnvelope]:
    return Call("GET", "/me", parse_as(MeEnvelope))


def usage(from_: Optional[str], to: Optional[str]) -> Call[UsageReportEnvelope]:
    return Call("GET", "/usage", parse_as(UsageReportEnvelope), params=_present({"from": from_, "to": to}))


def health() -> Call[HealthEnvelope]:
    return Call("GET", "/health", parse_as(HealthEnvelope))


def deep_health() -> Call[DeepHealthEnvelope]:
    return Call("GET", "/health/deep", parse_as(DeepHealthEnvelope))


def create_monitor(monitor: MonitorCreateInput, options: Options) -> Call[CreatedMonitorEnvelope]:
    body = body_of(MonitorCreate, monitor, options)
    return Call("POST", "/monitors", parse_as(CreatedMonitorEnvelope), json=body)


def list_monitors(since: Optional[str]) -> Call[MonitorListEnvelope]:
    return Call("GET", "/monitors", parse_as(MonitorListEnvelope), params=_present({"since": since}))


def get_monitor(monitor_id: str, since: Optional[str]) -> Call[MonitorEnvelope]:
    return Call(
        "GET", f"/monitors/{_segment(monitor_id)}", parse_as(MonitorEnvelope), params=_present({"since": since})
    )


def update_monitor(monitor_id: str, changes: Optional[MonitorUpdateInput], options: Options) -> Call[MonitorEnvelope]:
    body = body_of(MonitorUpdate, changes, options)
    return Call("PATCH", f"/monitors/{_segment(monitor_id)}", parse_as(MonitorEnvelope), json=body)


def delete_monitor(monitor_id: str) -> Call[MonitorDeletedEnvelope]:
    return Call("DELETE", f"/monitors/{_segment(monitor_id)}", parse_as(MonitorDeletedEnvelope))


def check_monitor(monitor_id: str) -> Call[MonitorCheckEnvelope]:
    return Call("POST", f"/monitors/{_segment(monitor_id)}/check", parse_as(MonitorCheckEnvelope))


def monitor_events(
    monitor_id: str, since: Optional[str], cursor: Optional[str], limit: Optional[int]
) -> Call[MonitorEventListEnvelope]:
    return Call(
        "GET",
        f"/monitors/{_segment(monitor_id)}/events",
        parse_as(MonitorEventListEnvelope),
        params=_present({"since": since, "cursor": cursor, "limit": limit}),
    )


def create_live(session: LiveCreateInput, options: Options) -> Call[LiveSessionEnvelope]:
    body = body_of(LiveCreate, session, options)
    return Call("POST", "/live", parse_as(LiveSessionEnvelope), json=body)


def list_live(query: Options) -> Call[LiveSessionListEnvelope]:
    return Call("GET", "/live", parse_as(LiveSessionListEnvelope), params=_query(query))


def get_live(session_id: str, query: Options) -> Call[LiveSessionDetailEnvelope]:
    return Call("GET", f"/live/{_segment(session_id)}", parse_as(LiveSessionDetailEnvelope), params=_query(query))


def stop_live(session_id: str) -> Call[LiveSessionEnvelope]:
    return Call("DELETE", f"/live/{_segment(session_id)}", parse_as(LiveSessionEnvelope))


def live_events_path(session_id: str) -> str:
    """The path of a session's server-sent events."""
    return f"/live/{_segment(session_id)}/events"


def _present(params: Mapping[str, Union[str, int, None]]) -> Dict[str, Union[str, int]]:
    return {name: value for name, value in params.items() if value is not None}


def _query(query: Options) -> Dict[str, Union[str, int]]:
    """Keyword query parameters by their wire names (``from_`` is ``from``), booleans as the wire writes them."""
    return _present({WIRE_NAMES.get(name, name): _wire_value(value) for name, value in query.items()})


def _wire_value(value: Union[str, int, bool, None]) -> Union[str, int, None]:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def _segment(identifier: str) -> str:
    # An id is one path segment: a slash in it must not reach another route.
    return quote(identifier, safe="")
