"""What the sync and async clients share about sending a call: headers, idempotency keys, when and how long to wait
before a retry, and how an answer becomes a model or an exception.
"""

from __future__ import annotations

import json
import random
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, Dict, Optional, TypeVar

import httpx

from ._calls import Call
from ._exceptions import APIError, UnexpectedResponseError
from ._model import ApiModel, RateLimit, ResponseMeta
from ._version import __version__
from .generated.errors import ERROR_CODES, ERROR_FAMILIES

Answer = TypeVar("Answer")

DEFAULT_BASE_URL = "http://127.0.0.1:8080"
DEFAULT_TIMEOUT = 120.0
"""Seconds: a batch answers within a minute, inline speech recognition may take longer."""
DEFAULT_MAX_RETRIES = 2
MAX_RETRY_AFTER_SECONDS = 60.0
"""The longest ``Retry-After`` the client waits for; a longer one is raised to the caller as the error it is."""
FIRST_BACKOFF_SECONDS = 0.5
MAX_BACKOFF_SECONDS = 8.0


@dataclass(frozen=True)
class Settings:
    """How a client reaches the server and how its calls behave."""

    base_url: str
    api_key: Optional[str]
    timeout: float
    max_retries: int
    default_headers: Mapping[str, str]

    def headers(self) -> Dict[str, str]:
        headers = {**self.default_headers, "User-Agent": f"verbatim-python/{__version__}"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers


def versioned_base_url(base_url: str) -> str:
    """The v2 base URL of a server address given with or without ``/api/v2``."""
    trimmed = base_url.rstrip("/")
    return trimmed if trimmed.endswith("/api/v2") else f"{trimmed}/api/v2"


def settings_from(
    api_key: Optional[str],
    base_url: Optional[str],
    timeout: float,
    max_retries: int,
    default_headers: Optional[Mapping[str, str]],
    environ: Mapping[str, str],
) -> Settings:
    if not isinstance(max_retries, int) or max_retries < 0:
        raise ValueError("max_retries must be a whole number, 0 or more")
    if not timeout > 0:
        raise ValueError("timeout must be a positive number of seconds")
    return Settings(
        base_url=versioned_base_url(base_url or environ.get("VERBATIM_BASE_URL") or DEFAULT_BASE_URL),
        api_key=api_key if api_key is not None else environ.get("VERBATIM_API_KEY"),
        timeout=timeout,
        max_retries=max_retries,
        default_headers=dict(default_headers or {}),
    )


def build_request(
    http: httpx.Client | httpx.AsyncClient, settings: Settings, call: Call[Any], idempotency_key: Optional[str]
) -> httpx.Request:
    """The request of a call, built once so that every retry sends the same bytes and the same ``Idempotency-Key``."""
    headers = settings.headers()
    if call.method == "POST":
        headers["Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
    return http.build_request(
        call.method,
        settings.base_url + call.path,
        params=call.params or None,
        json=call.json,
        headers=headers,
        timeout=settings.timeout,
    )


def retry_delay(response: httpx.Response, attempt: int) -> Optional[float]:
    """How long to wait before retrying an answer, or ``None`` when it is not retried.

    A 409 is retried only with ``Retry-After``: the key's first request is still running, and a retry then replays
    its answer (or runs, if that request was lost with its server); another body's 409 has none.
    """
    retry_after = retry_after_seconds(response.headers)
    if response.status_code == 409:
        return retry_after if retry_after is not None and retry_after <= MAX_RETRY_AFTER_SECONDS else None
    if response.status_code != 429 and response.status_code < 500:
        return None
    if retry_after is None:
        return backoff_seconds(attempt)
    return retry_after if retry_after <= MAX_RETRY_AFTER_SECONDS else None


def retry_after_seconds(headers: httpx.Headers) -> Optional[float]:
    """``Retry-After`` in seconds, given as seconds or as an HTTP date; ``None`` when absent or unreadable."""
    value = headers.get("retry-after")
    if value is None:
        return None
    if value.strip().isdigit():
        return float(value.strip())
    try:
        sent: float = parsedate_to_datetime(value).timestamp()
        return max(0.0, sent - time.time())
    except (TypeError, ValueError):
        return None


def backoff_seconds(attempt: int) -> float:
    """Full jitter: a uniform wait between 0 and a ceiling that doubles with each attempt, up to 8 s."""
    return random.random() * min(MAX_BACKOFF_SECONDS, FIRST_BACKOFF_SECONDS * 2.0**attempt)


def answer_of(call: Call[Answer], response: httpx.Response) -> Answer:
    """The model of a successful answer, carrying the response's metadata; raises the error an unsuccessful one
    carries.
    """
    request_id = response.headers.get("x-request-id")
    try:
        body = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise UnexpectedResponseError(response.status_code, response.text, request_id) from None
    if response.status_code >= 400 or not isinstance(body, dict):
        raise error_of(body, response.status_code, request_id, retry_after_seconds(response.headers))
    answer = call.parse(response.status_code, body)
    if isinstance(answer, ApiModel):
        answer._response = ResponseMeta(
            request_id=request_id or "",
            rate_limit=rate_limit_of(response.headers),
            replayed=response.headers.get("idempotent-replayed") == "true",
            http_status=response.status_code,
        )
    return answer


def error_of(body: Any, status: int, request_id: Optional[str], retry_after: Optional[float]) -> Exception:
    block = body.get("error") if isinstance(body, dict) else None
    if isinstance(block, dict) and isinstance(block.get("code"), str) and isinstance(block.get("number"), int):
        return api_error(block, status=status, request_id=request_id, retry_after=retry_after)
    return UnexpectedResponseError(status, json.dumps(body), request_id)


def api_error(
    block: Mapping[str, Any], *, status: int, request_id: Optional[str], retry_after: Optional[float]
) -> APIError:
    """The exception of an error block: its code's family, or for a code newer than this SDK, its number's family."""
    known = ERROR_CODES.get(str(block.get("code")))
    family = known.family if known else ERROR_FAMILIES.get(int(block.get("number", 0)) // 1000, APIError)
    return family(block, status=status, request_id=request_id, retry_after=retry_after)


def rate_limit_of(headers: httpx.Headers) -> Optional[RateLimit]:
    values = [headers.get(f"x-ratelimit-{name}") for name in ("limit", "remaining", "reset")]
    if any(value is None for value in values):
        return None
    limit, remaining, reset = (int(str(value)) for value in values)
    return RateLimit(limit=limit, remaining=remaining, reset=reset)
