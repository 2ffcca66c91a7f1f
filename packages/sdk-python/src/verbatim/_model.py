"""The base of every generated model, and what a response carried beside its body."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from pydantic import BaseModel, ConfigDict, PrivateAttr


@dataclass(frozen=True)
class RateLimit:
    """The request allowance an answer reported (``X-RateLimit-*``)."""

    limit: int
    """Requests allowed per 60-second window."""
    remaining: int
    """Requests left in the window."""
    reset: int
    """When the window frees a request, as a Unix time in seconds."""


@dataclass(frozen=True)
class ResponseMeta:
    """What every answer of a client method carries beside its body."""

    request_id: str
    """The request's id (``req_...``), from ``X-Request-Id``: quote it in a support request."""
    rate_limit: Optional[RateLimit]
    """The allowance after this call; ``None`` for endpoints without one (``/health``)."""
    replayed: bool
    """Whether the answer replays an earlier request with the same ``Idempotency-Key``."""
    http_status: int
    """200, 201 or 202."""


class ApiModel(BaseModel):
    """A model of the wire format. Fields newer than this SDK are kept, not refused, so an older SDK reads a newer
    server.
    """

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    _response: Optional[ResponseMeta] = PrivateAttr(default=None)

    @property
    def response(self) -> ResponseMeta:
        """The HTTP answer's metadata, on the envelope a client method returned."""
        if self._response is None:
            raise AttributeError("only the envelope a client method returned carries its response")
        return self._response
