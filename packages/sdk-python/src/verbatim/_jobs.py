"""What waiting for a speech recognition job means, shared by the sync and async ``wait_for_job``."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Literal, Optional, Union

from ._exceptions import APIError
from ._model import RateLimit
from ._transport import api_error
from .generated.errors import ERROR_CODES
from .generated.models import JobAccepted, JobCompleted, JobFailed, JobProcessing

DEFAULT_POLL_INTERVAL = 1.0
DEFAULT_WAIT_TIMEOUT = 30 * 60.0
LONGEST_POLL_INTERVAL = 10.0


@dataclass(frozen=True)
class JobProgress:
    """What ``on_progress`` is told after each poll."""

    job_id: str
    status: Literal["processing", "completed", "failed"]
    progress: Optional[float]
    """Share of the work done, 0 to 1, when the server knows it."""


ProgressCallback = Callable[[JobProgress], None]
JobRef = Union[str, JobAccepted]
"""A job: its id, or the 202 answer that started it."""


@dataclass(frozen=True)
class WaitOptions:
    """How ``video(..., wait=WaitOptions(...))`` and ``wait_for_job`` poll a job."""

    poll_interval: float = DEFAULT_POLL_INTERVAL
    """The first wait between polls, in seconds; later waits grow by half up to 10 s."""
    timeout: float = DEFAULT_WAIT_TIMEOUT
    """How long to wait in all, in seconds, before ``JobTimeoutError`` (the job goes on)."""
    on_progress: Optional[ProgressCallback] = None
    """Called after every poll with the job's state and, when known, its progress from 0 to 1."""


def job_id_of(job: JobRef) -> str:
    return job if isinstance(job, str) else job.job_id


def progress_of(state: Union[JobProcessing, JobCompleted, JobFailed]) -> JobProgress:
    if isinstance(state, JobCompleted):
        return JobProgress(state.job_id, "completed", 1.0)
    if isinstance(state, JobFailed):
        return JobProgress(state.job_id, "failed", None)
    return JobProgress(state.job_id, "processing", state.progress)


def failure_of(state: JobFailed) -> APIError:
    """The exception of a failed job, with the HTTP status its code has when answered at once."""
    error = state.error.model_dump(mode="json", by_alias=True)
    known = ERROR_CODES.get(str(error.get("code")))
    return api_error(
        error, status=known.status if known else 500, request_id=state.response.request_id, retry_after=None
    )


def allowance_spacing(rate_limit: Optional[RateLimit]) -> float:
    """The wait that keeps polling within the allowance: until the window frees a poll when it is spent, else the even
    share of a minute.
    """
    if rate_limit is None or rate_limit.limit <= 0:
        return 0.0
    if rate_limit.remaining <= 0:
        return max(0.0, rate_limit.reset - time.time())
    return 60.0 / rate_limit.limit


def next_interval(interval: float) -> float:
    """Waits grow by half up to 10 s: a long job is polled less often as it goes on."""
    return min(LONGEST_POLL_INTERVAL, interval * 1.5)
