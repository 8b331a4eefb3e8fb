from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="RubricLevelIn")


@_attrs_define
class RubricLevelIn:
    """One anchored level: its score, what it means, and optional example answers.

    Attributes:
        description (str):
        score (float):
        anchors (list[str] | Unset):
    """

    description: str
    score: float
    anchors: list[str] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        description = self.description

        score = self.score

        anchors: list[str] | Unset = UNSET
        if not isinstance(self.anchors, Unset):
            anchors = self.anchors

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "description": description,
                "score": score,
            }
        )
        if anchors is not UNSET:
            field_dict["anchors"] = anchors

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        description = d.pop("description")

        score = d.pop("score")

        anchors = cast(list[str], d.pop("anchors", UNSET))

        rubric_level_in = cls(
            description=description,
            score=score,
            anchors=anchors,
        )

        return rubric_level_in
