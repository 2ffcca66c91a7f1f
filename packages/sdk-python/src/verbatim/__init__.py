"""The Python client of the Verbatim API: ``Verbatim`` (sync) and ``AsyncVerbatim`` (asyncio), on httpx."""

from ._async_client import (
    AsyncLive,
    AsyncLiveSessionHandle,
    AsyncMonitors,
    AsyncTranscripts,
    AsyncVerbatim,
    AsyncVideos,
)
from ._exceptions import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    JobTimeoutError,
    UnexpectedResponseError,
    VerbatimError,
    WebhookVerificationError,
)
from ._jobs import JobProgress, WaitOptions
from ._model import ApiModel, RateLimit, ResponseMeta
from ._pagination import AsyncPaginator, Paginator
from ._version import __version__
from .formats import to_srt, to_text, to_vtt
from .generated.client import Live, LiveSessionHandle, Monitors, Transcripts, Verbatim, Videos
from .generated.errors import (
    ERROR_CODES,
    AccountError,
    ContentError,
    ErrorCode,
    InputError,
    RequestError,
    ServerError,
    TransientError,
)
from .webhooks import verify_webhook

__all__ = [
    "ERROR_CODES",
    "APIConnectionError",
    "APIError",
    "APITimeoutError",
    "AccountError",
    "ApiModel",
    "AsyncLive",
    "AsyncLiveSessionHandle",
    "AsyncMonitors",
    "AsyncPaginator",
    "AsyncTranscripts",
    "AsyncVerbatim",
    "AsyncVideos",
    "ContentError",
    "ErrorCode",
    "InputError",
    "JobProgress",
    "JobTimeoutError",
    "Live",
    "LiveSessionHandle",
    "Monitors",
    "Paginator",
    "RateLimit",
    "RequestError",
    "ResponseMeta",
    "ServerError",
    "Transcripts",
    "TransientError",
    "UnexpectedResponseError",
    "Verbatim",
    "VerbatimError",
    "Videos",
    "WaitOptions",
    "WebhookVerificationError",
    "__version__",
    "to_srt",
    "to_text",
    "to_vtt",
    "verify_webhook",
]
