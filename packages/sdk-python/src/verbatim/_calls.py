"""Each operation of the API as a ``Call``: its method, path, body and how its answer parses. The sync and async
clients send the same calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Generic, Optional, Type, TypeVar, Union
from urllib.parse import quote

from pydantic import TypeAdapter

from ._model import ApiModel
from .generated.models import (
    BatchRequest,
    BatchResultEnvelope,
    ChannelRequest,
    CreatedMonitorEnvelope,
    DeepHealthEnvelope,
    HealthEnvelope,
    JobAccepted,
    JobCompleted,
    JobFailed,
    JobProcessing,
    JobStatus,
    LibraryPageEnvelope,
    LibrarySearchPageEnvelope,
    LibrarySearchRequest,
    MeEnvelope,
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
    VideoPageEnvelope,
)

Answer = TypeVar("Answer")
RequestModel = TypeVar("RequestModel", bound=ApiModel)
ResponseModel = TypeVar("ResponseModel", bound=ApiModel)
JobState = Union[JobProcessing, JobCompleted, JobFailed]
"""A job's state, as ``GET /transcripts/jobs/{job_id}`` answers it."""

TranscriptInput = Union[TranscriptRequest, Mapping[str, Any], str]
"""A transcript request: the model, a dict of its fields, or just the ``video`` (an id or URL)."""
BatchInput = Union[BatchRequest, Mapping[str, Any]]
ChannelInput = Union[ChannelRequest, Mapping[str, Any]]
PlaylistInput = Union[PlaylistRequest, Mapping[str, Any]]
SearchInput = Union[SearchRequest, Mapping[str, Any]]
LibrarySearchInput = Union[LibrarySearchRequest, Mapping[str, Any]]
MonitorCreateInput = Union[MonitorCreate, Mapping[str, Any]]
MonitorUpdateInput = Union[MonitorUpdate, Mapping[str, Any]]


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


def body_of(model_type: Type[RequestModel], request: Union[RequestModel, Mapping[str, Any]]) -> Dict[str, Any]:
    """The JSON body of a request given as its model or as a dict: only the fields it sets, so a ``None`` sent clears
    and an omitted field is kept.
    """
    model = request if isinstance(request, model_type) else model_type.model_validate(request)
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


def _transcript_answer(status: int, body: Any) -> Union[TranscriptEnvelope, JobAccepted]:
    if status == 202:
        return JobAccepted.model_validate(body)
    return TranscriptEnvelope.model_validate(body)


def video(request: TranscriptInput) -> Call[Union[TranscriptEnvelope, JobAccepted]]:
    body = body_of(TranscriptRequest, {"video": request} if isinstance(request, str) else request)
    return Call("POST", "/transcripts/video", _transcript_answer, json=body)


def batch(request: BatchInput) -> Call[BatchResultEnvelope]:
    return Call("POST", "/transcripts/batch", parse_as(BatchResultEnvelope), json=body_of(BatchRequest, request))


def channel(request: ChannelInput) -> Call[VideoPageEnvelope]:
    return Call("POST", "/transcripts/channel", parse_as(VideoPageEnvelope), json=body_of(ChannelRequest, request))


def playlist(request: PlaylistInput) -> Call[VideoPageEnvelope]:
    return Call("POST", "/transcripts/playlist", parse_as(VideoPageEnvelope), json=body_of(PlaylistRequest, request))


def search(request: SearchInput) -> Call[VideoPageEnvelope]:
    return Call("POST", "/transcripts/search", parse_as(VideoPageEnvelope), json=body_of(SearchRequest, request))


def job(job_id: str) -> Call[JobState]:
    return Call("GET", f"/transcripts/jobs/{_segment(job_id)}", _job_state)


def library(limit: Optional[int], cursor: Optional[str]) -> Call[LibraryPageEnvelope]:
    return Call("GET", "/library", parse_as(LibraryPageEnvelope), params=_present({"limit": limit, "cursor": cursor}))


def search_library(request: LibrarySearchInput) -> Call[LibrarySearchPageEnvelope]:
    return Call(
        "POST",
        "/library/search",
        parse_as(LibrarySearchPageEnvelope),
        json=body_of(LibrarySearchRequest, request),
    )


def me() -> Call[MeEnvelope]:
    return Call("GET", "/me", parse_as(MeEnvelope))


def usage(from_: Optional[str], to: Optional[str]) -> Call[UsageReportEnvelope]:
    return Call("GET", "/usage", parse_as(UsageReportEnvelope), params=_present({"from": from_, "to": to}))


def health() -> Call[HealthEnvelope]:
    return Call("GET", "/health", parse_as(HealthEnvelope))


def deep_health() -> Call[DeepHealthEnvelope]:
    return Call("GET", "/health/deep", parse_as(DeepHealthEnvelope))


def create_monitor(monitor: MonitorCreateInput) -> Call[CreatedMonitorEnvelope]:
    return Call("POST", "/monitors", parse_as(CreatedMonitorEnvelope), json=body_of(MonitorCreate, monitor))


def list_monitors(since: Optional[str]) -> Call[MonitorListEnvelope]:
    return Call("GET", "/monitors", parse_as(MonitorListEnvelope), params=_present({"since": since}))


def get_monitor(monitor_id: str, since: Optional[str]) -> Call[MonitorEnvelope]:
    return Call(
        "GET", f"/monitors/{_segment(monitor_id)}", parse_as(MonitorEnvelope), params=_present({"since": since})
    )


def update_monitor(monitor_id: str, changes: MonitorUpdateInput) -> Call[MonitorEnvelope]:
    return Call(
        "PATCH", f"/monitors/{_segment(monitor_id)}", parse_as(MonitorEnvelope), json=body_of(MonitorUpdate, changes)
    )


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


def _present(params: Mapping[str, Union[str, int, None]]) -> Dict[str, Union[str, int]]:
    return {name: value for name, value in params.items() if value is not None}


def _segment(identifier: str) -> str:
    # An id is one path segment: a slash in it must not reach another route.
    return quote(identifier, safe="")
