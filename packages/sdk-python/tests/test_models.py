"""Every example of the OpenAPI document parses into the generated models, and serialises back to itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple, Union

import pytest
import yaml
from pydantic import TypeAdapter

import verbatim.models as models
from verbatim import ERROR_CODES, APIError, ApiModel
from verbatim._transport import api_error

CONTRACT = Path(__file__).resolve().parents[2] / "contract" / "generated" / "openapi.v2.yaml"


class _PlainLoader(yaml.SafeLoader):
    """YAML as JSON sees it: timestamps stay the strings the wire carries."""


_PlainLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}

DOCUMENT: Dict[str, Any] = yaml.load(CONTRACT.read_text(encoding="utf-8"), Loader=_PlainLoader)


def model_of(schema: Dict[str, Any]) -> Any:
    if "$ref" in schema:
        return getattr(models, schema["$ref"].rsplit("/", 1)[-1])
    variants = schema.get("anyOf") or schema.get("oneOf")
    if variants:
        return Union[tuple(model_of(variant) for variant in variants)]
    raise AssertionError(f"an example's schema names no model: {schema}")


def examples() -> Iterator[Tuple[str, Dict[str, Any], Any]]:
    def from_content(where: str, content: Dict[str, Any]) -> Iterator[Tuple[str, Dict[str, Any], Any]]:
        for media in content.values():
            for name, example in (media.get("examples") or {}).items():
                yield f"{where} {name}", media["schema"], example["value"]

    for path, operations in DOCUMENT["paths"].items():
        for method, operation in operations.items():
            where = f"{method.upper()} {path}"
            yield from from_content(f"{where} request", operation.get("requestBody", {}).get("content", {}))
            for status, response in operation["responses"].items():
                yield from from_content(f"{where} {status}", response.get("content", {}))
    for event, operations in DOCUMENT.get("webhooks", {}).items():
        for operation in operations.values():
            yield from from_content(f"webhook {event}", operation["requestBody"]["content"])


EXAMPLES: List[Tuple[str, Dict[str, Any], Any]] = list(examples())


def test_the_document_has_examples_of_requests_responses_errors_and_webhooks() -> None:
    names = " ".join(name for name, _, _ in EXAMPLES)
    assert len(EXAMPLES) >= 40
    for kind in ("request", " 200 ", " 202 ", " 401 ", " 429 "):
        assert kind in names


@pytest.mark.parametrize(("name", "schema", "example"), EXAMPLES, ids=[name for name, _, _ in EXAMPLES])
def test_every_example_parses_into_its_model_and_serialises_back_unchanged(
    name: str, schema: Dict[str, Any], example: Any
) -> None:
    adapter: TypeAdapter[Any] = TypeAdapter(model_of(schema))
    parsed = adapter.validate_python(example)
    assert isinstance(parsed, ApiModel), name
    assert parsed.model_extra == {}, f"{name}: fields the models do not know: {parsed.model_extra}"
    assert adapter.dump_python(parsed, mode="json", by_alias=True, exclude_unset=True) == example


@pytest.mark.parametrize(
    ("name", "schema", "example"),
    [case for case in EXAMPLES if isinstance(case[2], dict) and case[2].get("ok") is False and "error" in case[2]],
)
def test_every_error_example_raises_the_family_of_its_code(name: str, schema: Dict[str, Any], example: Any) -> None:
    error = api_error(
        example["error"], status=ERROR_CODES[example["error"]["code"]].status, request_id=None, retry_after=None
    )
    assert isinstance(error, ERROR_CODES[error.code].family)
    assert isinstance(error, APIError)
    assert (error.code, error.number, error.message) == (
        example["error"]["code"],
        example["error"]["number"],
        example["error"]["message"],
    )


@pytest.mark.parametrize("platform", ["tiktok", "loom", "bluesky"])
def test_a_platform_the_models_do_not_list_still_parses(platform: str) -> None:
    """The server learns platforms (an operator may allow more yt-dlp extractors): a shipped client must not break."""
    transcript = models.TranscriptJobRef.model_validate(
        {"kind": "transcript_job", "video_id": "1", "platform": platform}
    )
    assert transcript.platform == platform
