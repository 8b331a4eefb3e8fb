from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="CriterionIn")


@_attrs_define
class CriterionIn:
    """One weighted criterion.

    Attributes:
        name (str):
        weight (float):
        description (str | Unset):  Default: ''.
    """

    name: str
    weight: float
    description: str | Unset = ""

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        weight = self.weight

        description = self.description

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "weight": weight,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        weight = d.pop("weight")

        description = d.pop("description", UNSET)

        criterion_in = cls(
            name=name,
            weight=weight,
            description=description,
        )

        return criterion_in
