from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="LabelerTestRead")


@_attrs_define
class LabelerTestRead:
    """One labeler left out: who represents the other labelers better, the judge or it.

    Attributes:
        items (int): its labelled items that the judge judged
        judge_advantage (float): share of them where the judge agrees with the other labelers at least as often as this
            labeler does
        judge_wins (bool): H0 rejected at the FDR level q
        labeler (str):
        labeler_advantage (float): the same for the labeler against the judge
        p_adjusted (float): Benjamini-Yekutieli adjusted across the labelers
        p_value (float): one-sided paired t-test of H0: labeler_advantage − judge_advantage ≥ ε
    """

    items: int
    judge_advantage: float
    judge_wins: bool
    labeler: str
    labeler_advantage: float
    p_adjusted: float
    p_value: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        items = self.items

        judge_advantage = self.judge_advantage

        judge_wins = self.judge_wins

        labeler = self.labeler

        labeler_advantage = self.labeler_advantage

        p_adjusted = self.p_adjusted

        p_value = self.p_value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "items": items,
                "judge_advantage": judge_advantage,
                "judge_wins": judge_wins,
                "labeler": labeler,
                "labeler_advantage": labeler_advantage,
                "p_adjusted": p_adjusted,
                "p_value": p_value,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        items = d.pop("items")

        judge_advantage = d.pop("judge_advantage")

        judge_wins = d.pop("judge_wins")

        labeler = d.pop("labeler")

        labeler_advantage = d.pop("labeler_advantage")

        p_adjusted = d.pop("p_adjusted")

        p_value = d.pop("p_value")

        labeler_test_read = cls(
            items=items,
            judge_advantage=judge_advantage,
            judge_wins=judge_wins,
            labeler=labeler,
            labeler_advantage=labeler_advantage,
            p_adjusted=p_adjusted,
            p_value=p_value,
        )

        labeler_test_read.additional_properties = d
        return labeler_test_read

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
