from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.human_win_rate_tier import HumanWinRateTier

T = TypeVar("T", bound="HumanWinRate")


@_attrs_define
class HumanWinRate:
    """The gold labels from the random labeling queue alone.

    Attributes:
        ci95 (list[float]): CLT (the anchored estimate's λ = 0), clipped to [0, 1]
        n_labelled (int): comparisons with a gold label from the queue
        tier (HumanWinRateTier):
        win_rate (float):
    """

    ci95: list[float]
    n_labelled: int
    tier: HumanWinRateTier
    win_rate: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        ci95 = []
        for ci95_item_data in self.ci95:
            ci95_item: float
            ci95_item = ci95_item_data
            ci95.append(ci95_item)

        n_labelled = self.n_labelled

        tier = self.tier.value

        win_rate = self.win_rate

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ci95": ci95,
                "n_labelled": n_labelled,
                "tier": tier,
                "win_rate": win_rate,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        ci95 = []
        _ci95 = d.pop("ci95")
        for ci95_item_data in _ci95:

            def _parse_ci95_item(data: object) -> float:
                return cast(float, data)

            ci95_item = _parse_ci95_item(ci95_item_data)

            ci95.append(ci95_item)

        n_labelled = d.pop("n_labelled")

        tier = HumanWinRateTier(d.pop("tier"))

        win_rate = d.pop("win_rate")

        human_win_rate = cls(
            ci95=ci95,
            n_labelled=n_labelled,
            tier=tier,
            win_rate=win_rate,
        )

        human_win_rate.additional_properties = d
        return human_win_rate

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
