"""Shared request field types: no NUL bytes or lone surrogates, within limits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, GetCoreSchemaHandler, GetJsonSchemaHandler, StringConstraints
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, core_schema


@dataclass
class TextLimits:
    """The text limit in force; `create_app` sets it from the settings."""

    max_text_chars: int = 100_000


LIMITS = TextLimits()


def encodes_as_utf8(text: str) -> bool:
    """False when the text holds a lone surrogate, which UTF-8 (and so PostgreSQL) cannot store."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_text(text: str) -> str:
    """Reject what no judge or database should see."""
    if "\x00" in text:
        raise ValueError("text must not contain NUL bytes")
    if not encodes_as_utf8(text):
        raise ValueError("text must not contain lone surrogates")
    if len(text) > LIMITS.max_text_chars:
        raise ValueError(f"text is longer than {LIMITS.max_text_chars} characters")
    return text


def check_not_blank(text: str) -> str:
    """A text a judge must read (a prompt, a response, a criterion) says something: whitespace
    alone would reach the judge as an empty text and get a verdict on nothing."""
    if not text.strip():
        raise ValueError("text must not be empty or whitespace only")
    return text


def check_judged_text(text: str) -> str:
    """`check_text`, then `check_not_blank`: what a text a judge reads must pass."""
    return check_not_blank(check_text(text))


class JudgedText:
    """A text a judge reads: `check_judged_text` after the string's own constraints, and the JSON
    schema says it (`pattern: \\S`, "holds a non-whitespace character"), so that a client or
    fuzzer generating from the schema sends texts the API takes."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        return core_schema.no_info_after_validator_function(check_judged_text, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        json_schema = handler.resolve_ref_schema(handler(schema))
        json_schema["pattern"] = r"\S"
        return json_schema


Text = Annotated[str, AfterValidator(check_text)]
NonEmptyText = Annotated[str, StringConstraints(min_length=1), JudgedText()]
Name = Annotated[
    str, StringConstraints(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9._:-]*$")
]
ShortText = Annotated[str, StringConstraints(max_length=200), AfterValidator(check_text)]
TagKey = Annotated[str, StringConstraints(min_length=1, max_length=64), AfterValidator(check_text)]
TagValue = Annotated[str, StringConstraints(max_length=256), AfterValidator(check_text)]
CriteriaText = Annotated[str, StringConstraints(min_length=1, max_length=20_000), JudgedText()]
CriterionName = Annotated[str, StringConstraints(min_length=1, max_length=100), JudgedText()]
Description = Annotated[str, StringConstraints(max_length=2000), AfterValidator(check_text)]
Family = Annotated[str, StringConstraints(min_length=1, max_length=100)]
# A generating model's name as a filter (`comparisons.model_a`, String(200)); check_text keeps out
# NUL bytes and lone surrogates, which the database could not compare.
ModelName = Annotated[
    str, StringConstraints(min_length=1, max_length=200), AfterValidator(check_text)
]
