"""The exceptions the SDK raises. The API error families (``RequestError``, ``AccountError``, ...) are generated from
the contract's error table into ``generated/errors.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Dict, List, Optional


class VerbatimError(Exception):
    """The base of every exception the SDK raises."""


class APIError(VerbatimError):
    """The API answered with an error envelope. Branch on ``code`` (or ``number``), never on ``message``."""

    status: int
    """The HTTP status."""
    code: str
    """The stable error code."""
    number: int
    """The stable error number; its thousands digit is the family, 5xxx means retry with backoff."""
    message: str
    """What went wrong, for people."""
    docs: str
    """The catalog page of the code."""
    request_id: Optional[str]
    """The request's id (``req_...``), to quote to the operator."""
    retry_with: Optional[Dict[str, Any]]
    """What to change for a retry to succeed, when the server knows (a ``no_captions`` says ``{"mode": "audio"}``)."""
    details: Optional[Dict[str, Any]]
    """Structured details: the batch cap and size of a ``batch_too_large``, the feed of a podcast error."""
    issues: List[Dict[str, Any]]
    """Each field that failed validation, for ``invalid_request``."""
    retry_after: Optional[float]
    """Seconds to wait before retrying, when the server said."""
    retryable: bool
    """Whether the same request may succeed later unchanged: 429, 5xx and every 5xxx number."""
    body: Dict[str, Any]
    """The error block as answered."""

    def __init__(
        self,
        body: Mapping[str, Any],
        *,
        status: int,
        request_id: Optional[str],
        retry_after: Optional[float],
    ) -> None:
        super().__init__(str(body.get("message", "")))
        self.body = dict(body)
        self.status = status
        self.code = str(body.get("code", "unknown"))
        self.number = int(body.get("number", 0))
        self.message = str(body.get("message", ""))
        self.docs = str(body.get("docs", ""))
        self.request_id = request_id
        self.retry_with = body.get("retry_with")
        self.details = body.get("details")
        self.issues = list(body.get("issues") or [])
        self.retry_after = retry_after
        self.retryable = status == 429 or status >= 500 or self.number // 1000 == 5

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status}, code={self.code!r}, message={self.message!r})"


class UnexpectedResponseError(VerbatimError):
    """The server, or something between it and the client, answered without the API's envelope."""

    def __init__(self, status: int, response_text: str, request_id: Optional[str]) -> None:
        super().__init__(f"HTTP {status} without an error envelope: {response_text[:200]}")
        self.status = status
        self.response_text = response_text
        self.request_id = request_id
        self.retryable = status == 429 or status >= 500


class APIConnectionError(VerbatimError):
    """The request never got a complete answer: the connection failed, was reset or closed early."""

    retryable = True


class APITimeoutError(APIConnectionError):
    """An attempt got no complete answer within the client's ``timeout``."""


class WebhookVerificationError(VerbatimError):
    """A webhook's body or signature did not verify: do not act on it."""


class JobTimeoutError(VerbatimError):
    """``wait_for_job`` gave up before the job finished; the job goes on, and can be waited for again."""

    def __init__(self, job_id: str, waited_seconds: float) -> None:
        super().__init__(f"job {job_id} was still processing after {round(waited_seconds)} s")
        self.job_id = job_id
        self.waited_seconds = waited_seconds
