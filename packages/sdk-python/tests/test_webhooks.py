"""verify_webhook against deliveries signed here the Standard Webhooks way (the live tests verify the server's)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Dict

import pytest

from verbatim import WebhookVerificationError, verify_webhook
from verbatim.models import TranscriptJobFailedWebhook

SECRET = "whsec_" + base64.b64encode(b"a secret of thirty-two bytes!!!!").decode()
BODY = json.dumps(
    {
        "type": "transcript_job.failed",
        "job_id": "job_01JD7XH0V6Q8M2F4A9C3K5T7W1",
        "status": "failed",
        "error": {"code": "no_speech", "number": 4105, "message": "silence", "docs": "http://x/docs/errors/no_speech"},
    }
)


def signed(body: str, secret: str = SECRET, at: int | None = None, message_id: str = "evt_1") -> Dict[str, str]:
    timestamp = str(int(time.time()) if at is None else at)
    key = base64.b64decode(secret.removeprefix("whsec_"))
    digest = hmac.new(key, f"{message_id}.{timestamp}.{body}".encode(), hashlib.sha256).digest()
    return {
        "Webhook-Id": message_id,
        "Webhook-Timestamp": timestamp,
        "Webhook-Signature": f"v1,{base64.b64encode(digest).decode()}",
    }


def test_a_signed_delivery_verifies_as_str_or_bytes_and_answers_the_typed_event() -> None:
    event = verify_webhook(BODY, signed(BODY), SECRET)
    assert isinstance(event, TranscriptJobFailedWebhook)
    assert event.error.code == "no_speech"
    assert verify_webhook(BODY.encode(), signed(BODY), SECRET) == event


def test_any_of_several_signatures_verifies_during_a_secret_rotation() -> None:
    headers = signed(BODY)
    headers["Webhook-Signature"] = "v1,bm90IHRoaXMgb25l " + headers["Webhook-Signature"]
    assert verify_webhook(BODY, headers, SECRET).type == "transcript_job.failed"


def test_a_tampered_body_another_secret_or_a_bad_secret_does_not_verify() -> None:
    headers = signed(BODY)
    with pytest.raises(WebhookVerificationError):
        verify_webhook(BODY.replace("silence", "noise"), headers, SECRET)
    other = "whsec_" + base64.b64encode(b"another secret of 32 bytes......").decode()
    with pytest.raises(WebhookVerificationError):
        verify_webhook(BODY, headers, other)
    with pytest.raises(WebhookVerificationError, match="whsec_"):
        verify_webhook(BODY, headers, "plain-text")


def test_a_timestamp_more_than_five_minutes_away_is_refused_as_a_replay() -> None:
    sent_at = int(time.time())
    headers = signed(BODY, at=sent_at)
    assert verify_webhook(BODY, headers, SECRET, now=sent_at + 4 * 60).type == "transcript_job.failed"
    with pytest.raises(WebhookVerificationError, match="timestamp"):
        verify_webhook(BODY, headers, SECRET, now=sent_at + 6 * 60)
    with pytest.raises(WebhookVerificationError, match="timestamp"):
        verify_webhook(BODY, headers, SECRET, now=sent_at - 6 * 60)


def test_missing_headers_or_a_body_that_is_no_event_do_not_verify() -> None:
    headers = signed(BODY)
    del headers["Webhook-Signature"]
    with pytest.raises(WebhookVerificationError, match="webhook-signature"):
        verify_webhook(BODY, headers, SECRET)
    not_an_event = json.dumps({"hello": "world"})
    with pytest.raises(WebhookVerificationError, match="not an event"):
        verify_webhook(not_an_event, signed(not_an_event), SECRET)
