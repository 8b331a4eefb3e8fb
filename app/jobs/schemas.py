"""The parts of a job's request every kind takes the same way: responses, criteria, tags."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from app.fields import CriterionName, Description, Family, NonEmptyText, ShortText


class ResponseIn(BaseModel):
    """One response to compare: its text, and optionally the model and family that wrote it."""

    model_config = ConfigDict(extra="forbid")

    text: NonEmptyText
    model: ShortText | None = None
    family: Family | None = None


def _plain_string_is_text(value: Any) -> Any:
    return {"text": value} if isinstance(value, str) else value


# A response as the API takes it: `{text, model?, family?}` or the text alone. The schema says
# both (anyOf), so that generated clients accept the plain string the README shows.
ResponseOrText = Annotated[
    ResponseIn,
    BeforeValidator(_plain_string_is_text, json_schema_input_type=NonEmptyText | ResponseIn),
]


DEADLINE_DESCRIPTION = (
    "seconds before calls still running are cancelled and stored failed; default and maximum "
    "`FAIRPAIR_COMPARE_TIMEOUT_S` (120 unless the operator set it)"
)
# A request's deadline. Its upper bound is a setting (`FAIRPAIR_COMPARE_TIMEOUT_S`), checked when
# the job is prepared (422 naming /timeout_s); `app.main` writes it into the served schema as
# `maximum`, so that the schema states the bound the server enforces.
DeadlineSeconds = Annotated[
    Annotated[float, Field(gt=0, allow_inf_nan=False)] | None,
    Field(description=DEADLINE_DESCRIPTION),
]


class CriterionIn(BaseModel):
    """One weighted criterion."""

    model_config = ConfigDict(extra="forbid")

    name: CriterionName
    weight: float = Field(gt=0, le=1000)
    description: Description = ""


# 1 to 20: the bound is in the schema, so that pydantic stops at the 21st criterion instead of
# validating millions of them first (issue 36: 2 million took 40 s before a validator refused).
CriteriaList = Annotated[list[CriterionIn], Field(min_length=1, max_length=20)]


class JobRequestIn(BaseModel):
    """The checks every kind's request makes of the fields they share (each kind declares the
    fields, in its own order: the answer schema's property order is part of the contract)."""

    @field_validator("judges", mode="after", check_fields=False)
    @classmethod
    def _judges_distinct(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and len(set(value)) != len(value):
            raise ValueError("judges must be distinct")
        return value
