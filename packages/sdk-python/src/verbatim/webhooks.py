"""Verifying the webhooks Verbatim delivers (Standard Webhooks, https://www.standardwebhooks.com/)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from typing import Optional, Union

from pydantic import TypeAdapter, ValidationError

from ._exceptions import WebhookVerificationError
from .generated.models import WebhookEvent

TIMESTAMP_TOLERANCE_SECONDS = 5 * 60
"""How far a ``webhook-timestamp`` may be from now; an older delivery is taken for a replay."""

_events: TypeAdapter[WebhookEvent] = TypeAdapter(WebhookEvent)


def verify_webhook(
    body: Union[str, bytes],
    headers: Mapping[str, str],
    secret: str,
    *,
    now: Optional[float] = None,
) -> WebhookEvent:
    """Verifies a delivery and answers its typed event.

    Pass the body exactly as received (before any JSON parsing), the request's headers (any
    mapping; names are matched without regard to case) and the secret (``whsec_...``): the
    account's for job callbacks, the monitor's for its events. A signature that matches none of
    the ``webhook-signature`` values, or a ``webhook-timestamp`` more than five minutes from
    ``now`` (default: the current time), raises ``WebhookVerificationError``.
    """
    payload = body if isinstance(body, bytes) else body.encode("utf-8")
    message_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    try:
        sent_at = int(timestamp)
    except ValueError:
        raise WebhookVerificationError("the webhook-timestamp header is not a Unix time") from None
    current = time.time() if now is None else now
    if abs(current - sent_at) > TIMESTAMP_TOLERANCE_SECONDS:
        raise WebhookVerificationError("the webhook-timestamp is more than 5 minutes from now")
    signed = message_id.encode("utf-8") + b"." + timestamp.encode("utf-8") + b"." + payload
    expected = base64.b64encode(hmac.new(_key_of(secret), signed, hashlib.sha256).digest())
    # Several space-separated signatures let a sender sign with an old and a new secret during rotation.
    candidates = [value.split(",", 1) for value in signatures.split()]
    if not any(
        len(pair) == 2 and pair[0] == "v1" and hmac.compare_digest(pair[1].encode("ascii", "replace"), expected)
        for pair in candidates
    ):
        raise WebhookVerificationError("no webhook-signature matches the body and the secret")
    try:
        return _events.validate_python(json.loads(payload))
    except (ValueError, ValidationError) as error:
        raise WebhookVerificationError(f"the webhook's body is not an event: {error}") from error


def _header(headers: Mapping[str, str], name: str) -> str:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    raise WebhookVerificationError(f"the {name} header is missing")


def _key_of(secret: str) -> bytes:
    if not secret.startswith("whsec_"):
        raise WebhookVerificationError("the webhook secret is not a whsec_ secret")
    try:
        return base64.b64decode(secret[len("whsec_") :], validate=True)
    except (binascii.Error, ValueError):
        raise WebhookVerificationError("the webhook secret is not a whsec_ secret") from None
