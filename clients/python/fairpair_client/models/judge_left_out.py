from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="JudgeLeftOut")


@_attrs_define
class JudgeLeftOut:
    """The board refitted without one judge of the panel, against the full board.

    Attributes:
        changed (int): outcomes whose verdict differs without this judge
        judge (str):
        kendall_tau (float | None): Kendall τ-b of the fits without and with this judge over those models (1: the same
            order); null with fewer than two or when a fit ties them all
        models (int): models rated both on the full board and without this judge
        n (int): outcomes left with a verdict (those it judged alone drop out)
        voted (int): outcomes this judge voted on
    """

    changed: int
    judge: str
    kendall_tau: float | None
    models: int
    n: int
    voted: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        changed = self.changed

        judge = self.judge

        kendall_tau: float | None
        kendall_tau = self.kendall_tau

        models = self.models

        n = self.n

        voted = self.voted

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "changed": changed,
                "judge": judge,
                "kendall_tau": kendall_tau,
                "models": models,
                "n": n,
                "voted": voted,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        changed = d.pop("changed")

        judge = d.pop("judge")

        def _parse_kendall_tau(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        kendall_tau = _parse_kendall_tau(d.pop("kendall_tau"))

        models = d.pop("models")

        n = d.pop("n")

        voted = d.pop("voted")

        judge_left_out = cls(
            changed=changed,
            judge=judge,
            kendall_tau=kendall_tau,
            models=models,
            n=n,
            voted=voted,
        )

        judge_left_out.additional_properties = d
        return judge_left_out

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
