"""Retries, backoff, Retry-After, timeouts and idempotency keys, against respx and a server that never answers."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from typing import Any, Dict, List

import httpx
import pytest
import respx

from verbatim import (
    AccountError,
    APIConnectionError,
    APITimeoutError,
    AsyncVerbatim,
    RequestError,
    TransientError,
    UnexpectedResponseError,
    Verbatim,
)

BASE = "http://verbatim.test/api/v2"
KEY = "vb_live_" + "a" * 32


def envelope(data: Dict[str, Any]) -> Dict[str, Any]:
    return {"ok": True, "request_id": "req_01JD7XH0V6Q8M2F4A9C3K5T7W1", "data": data}


ME = envelope(
    {
        "kind": "me",
        "user_id": "acct_01JD7X9T2W4Y6A8C0E2G4J6K8N",
        "credits": 10,
        "plan": "pro",
        "rate_limit": {"limit": 60, "remaining": 59, "reset": 1795000000},
    }
) | {"usage": {"credits_spent": 0, "balance": 10, "bytes": 0}}

BATCH = {
    **envelope({"kind": "transcript_batch", "results": []}),
    "usage": {"credits_spent": 0, "balance": 10, "bytes": 0},
}


def failure(code: str, number: int, status: int, headers: Dict[str, str] | None = None) -> httpx.Response:
    body = {
        "ok": False,
        "request_id": "req_01JD7XH0V6Q8M2F4A9C3K5T7W1",
        "error": {"code": code, "number": number, "message": code, "docs": f"http://x/docs/errors/{code}"},
    }
    return httpx.Response(status, json=body, headers={"x-request-id": "req_failed", **(headers or {})})


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> List[float]:
    """The waits between attempts, recorded instead of slept."""
    waited: List[float] = []
    monkeypatch.setattr("verbatim.generated.client.time.sleep", waited.append)
    return waited


@pytest.fixture
def client() -> Iterator[Verbatim]:
    with Verbatim(api_key=KEY, base_url="http://verbatim.test") as verbatim:
        yield verbatim


@respx.mock
def test_a_503_then_a_200_is_retried_once_with_the_same_idempotency_key(client: Verbatim, sleeps: List[float]) -> None:
    route = respx.post(f"{BASE}/transcripts/batch").mock(
        side_effect=[failure("upstream_error", 5001, 503), httpx.Response(200, json=BATCH)]
    )
    answer = client.transcripts.batch({"video_ids": ["jNQXAC9IVRw"]})
    assert answer.data.results == []
    keys = [call.request.headers["idempotency-key"] for call in route.calls]
    assert len(keys) == 2 and keys[0] == keys[1]
    assert all(call.request.content == route.calls[0].request.content for call in route.calls)
    assert len(sleeps) == 1


@respx.mock
def test_every_post_gets_its_own_generated_key_and_a_given_key_is_sent_as_is(client: Verbatim) -> None:
    route = respx.post(f"{BASE}/transcripts/batch").mock(return_value=httpx.Response(200, json=BATCH))
    client.transcripts.batch({"video_ids": ["a"]})
    client.transcripts.batch({"video_ids": ["a"]})
    client.transcripts.batch({"video_ids": ["a"]}, idempotency_key="nightly-2026-11-25")
    keys = [call.request.headers["idempotency-key"] for call in route.calls]
    assert keys[0] != keys[1]
    assert keys[2] == "nightly-2026-11-25"


@respx.mock
def test_gets_carry_no_idempotency_key_but_the_key_and_user_agent(client: Verbatim) -> None:
    route = respx.get(f"{BASE}/me").mock(return_value=httpx.Response(200, json=ME))
    client.me()
    request = route.calls[0].request
    assert "idempotency-key" not in request.headers
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["user-agent"].startswith("verbatim-python/")


@respx.mock
def test_backoff_is_full_jitter_under_a_ceiling_doubling_from_half_a_second(
    client: Verbatim, sleeps: List[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("verbatim._transport.random.random", lambda: 1.0)
    respx.get(f"{BASE}/me").mock(
        side_effect=[
            httpx.Response(500, text="boom"),
            httpx.Response(502, text="bad gateway"),
            httpx.Response(200, json=ME),
        ]
    )
    assert client.me().data.plan == "pro"
    assert sleeps == [0.5, 1.0]


@respx.mock
def test_retry_after_is_waited_for_instead_of_the_backoff(client: Verbatim, sleeps: List[float]) -> None:
    respx.get(f"{BASE}/me").mock(
        side_effect=[failure("rate_limited", 2101, 429, {"retry-after": "3"}), httpx.Response(200, json=ME)]
    )
    client.me()
    assert sleeps == [3.0]


@respx.mock
def test_a_409_still_running_is_retried_after_its_retry_after_with_the_same_key(
    client: Verbatim, sleeps: List[float]
) -> None:
    route = respx.post(f"{BASE}/transcripts/batch").mock(
        side_effect=[
            failure("idempotency_conflict", 1201, 409, {"retry-after": "4"}),
            httpx.Response(200, json=BATCH, headers={"idempotent-replayed": "true"}),
        ]
    )
    result = client.transcripts.batch(video_ids=["jNQXAC9IVRw"])
    assert result.response.replayed
    assert sleeps == [4.0]
    keys = {call.request.headers["idempotency-key"] for call in route.calls}
    assert len(keys) == 1


@respx.mock
def test_a_409_without_retry_after_is_raised_at_once(client: Verbatim, sleeps: List[float]) -> None:
    route = respx.post(f"{BASE}/transcripts/batch").mock(return_value=failure("idempotency_conflict", 1201, 409))
    with pytest.raises(RequestError) as raised:
        client.transcripts.batch(video_ids=["a"])
    assert (raised.value.status, raised.value.code, raised.value.retryable) == (409, "idempotency_conflict", False)
    assert route.call_count == 1 and sleeps == []


@respx.mock
def test_a_retry_after_over_a_minute_is_raised_at_once_with_retry_after(client: Verbatim, sleeps: List[float]) -> None:
    route = respx.get(f"{BASE}/me").mock(return_value=failure("rate_limited", 2101, 429, {"retry-after": "120"}))
    with pytest.raises(AccountError) as raised:
        client.me()
    assert (raised.value.code, raised.value.status, raised.value.retry_after) == ("rate_limited", 429, 120.0)
    assert raised.value.retryable
    assert route.call_count == 1 and sleeps == []


@respx.mock
def test_after_max_retries_the_last_error_is_raised_with_its_fields(client: Verbatim, sleeps: List[float]) -> None:
    route = respx.get(f"{BASE}/me").mock(return_value=failure("overloaded", 5201, 503, {"retry-after": "1"}))
    with pytest.raises(TransientError) as raised:
        client.me()
    error = raised.value
    assert route.call_count == 3
    assert (error.status, error.code, error.number, error.request_id, error.retry_after) == (
        503,
        "overloaded",
        5201,
        "req_failed",
        1.0,
    )
    assert error.docs.endswith("/docs/errors/overloaded")


@respx.mock
def test_a_4xx_is_not_retried(client: Verbatim, sleeps: List[float]) -> None:
    route = respx.get(f"{BASE}/me").mock(return_value=failure("unauthorized", 1101, 401))
    with pytest.raises(RequestError):
        client.me()
    assert route.call_count == 1


@respx.mock
def test_connection_failures_are_retried_then_raised_as_api_connection_error(
    client: Verbatim, sleeps: List[float]
) -> None:
    route = respx.get(f"{BASE}/me").mock(side_effect=httpx.ConnectError("refused"))
    with pytest.raises(APIConnectionError) as raised:
        client.me()
    assert not isinstance(raised.value, APITimeoutError)
    assert route.call_count == 3 and len(sleeps) == 2


@respx.mock
def test_an_answer_without_the_envelope_is_an_unexpected_response(client: Verbatim) -> None:
    respx.get(f"{BASE}/me").mock(return_value=httpx.Response(404, text="<html>nginx</html>"))
    with pytest.raises(UnexpectedResponseError) as raised:
        client.me()
    assert raised.value.status == 404


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A server that accepts connections and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    accepted: List[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    stop.set()
    thread.join()
    for connection in accepted:
        connection.close()
    listener.close()


def test_a_server_that_never_answers_times_out_each_attempt_as_api_timeout_error(
    silent_server: str, sleeps: List[float]
) -> None:
    with (
        Verbatim(api_key=KEY, base_url=silent_server, timeout=0.2, max_retries=1) as verbatim,
        pytest.raises(APITimeoutError),
    ):
        verbatim.me()
    assert len(sleeps) == 1


async def test_the_async_client_times_out_too(silent_server: str) -> None:
    async with AsyncVerbatim(api_key=KEY, base_url=silent_server, timeout=0.2, max_retries=0) as verbatim:
        with pytest.raises(APITimeoutError):
            await verbatim.me()


@respx.mock
async def test_the_async_client_retries_with_the_same_idempotency_key(monkeypatch: pytest.MonkeyPatch) -> None:
    waited: List[float] = []

    async def record(seconds: float) -> None:
        waited.append(seconds)

    monkeypatch.setattr("verbatim._async_client.asyncio.sleep", record)
    route = respx.post(f"{BASE}/transcripts/batch").mock(
        side_effect=[
            httpx.ConnectError("reset"),
            failure("rate_limited", 2101, 429, {"retry-after": "2"}),
            httpx.Response(200, json=BATCH),
        ]
    )
    async with AsyncVerbatim(api_key=KEY, base_url=BASE) as verbatim:
        await verbatim.transcripts.batch({"video_ids": ["a"]})
    keys = {call.request.headers["idempotency-key"] for call in route.calls}
    assert route.call_count == 3 and len(keys) == 1
    assert waited[1] == 2.0 and 0 <= waited[0] <= 0.5


@respx.mock
def test_with_options_changes_retries_for_its_calls_only(client: Verbatim, sleeps: List[float]) -> None:
    route = respx.get(f"{BASE}/me").mock(return_value=httpx.Response(503, text="down"))
    with pytest.raises(UnexpectedResponseError):
        client.with_options(max_retries=0).me()
    assert route.call_count == 1
    with pytest.raises(UnexpectedResponseError):
        client.me()
    assert route.call_count == 4


def test_the_key_and_address_fall_back_to_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERBATIM_API_KEY", KEY)
    monkeypatch.setenv("VERBATIM_BASE_URL", "https://verbatim.example/")
    with Verbatim() as verbatim, respx.mock:
        route = respx.get("https://verbatim.example/api/v2/me").mock(return_value=httpx.Response(200, json=ME))
        verbatim.me()
        assert verbatim.base_url == "https://verbatim.example/api/v2"
        assert route.calls[0].request.headers["authorization"] == f"Bearer {KEY}"


def test_settings_out_of_range_are_refused() -> None:
    with pytest.raises(ValueError, match="max_retries"):
        Verbatim(api_key=KEY, max_retries=-1)
    with pytest.raises(ValueError, match="timeout"):
        Verbatim(api_key=KEY, timeout=0)
