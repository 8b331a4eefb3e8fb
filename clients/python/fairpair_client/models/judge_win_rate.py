from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.judge_win_rate_tier import JudgeWinRateTier
from ..types import UNSET, Unset

T = TypeVar("T", bound="JudgeWinRate")


@_attrs_define
class JudgeWinRate:
    """The judges' debiased verdicts alone, over every comparison of the two models.

    Attributes:
        ci95 (list[float]): CLT: win_rate ± 1.96·sd/√n, clipped to [0, 1]
        n (int): comparisons
        tier (JudgeWinRateTier):
        win_rate (float): mean outcome for `model`: won 1, tie ½, lost 0
        interval (Literal['clt'] | Unset):  Default: 'clt'.
    """

    ci95: list[float]
    n: int
    tier: JudgeWinRateTier
    win_rate: float
    interval: Literal["clt"] | Unset = "clt"
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        ci95 = []
        for ci95_item_data in self.ci95:
            ci95_item: float
            ci95_item = ci95_item_data
            ci95.append(ci95_item)

        n = self.n

        tier = self.tier.value

        win_rate = self.win_rate

        interval = self.interval

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ci95": ci95,
                "n": n,
                "tier": tier,
                "win_rate": win_rate,
            }
        )
        if interval is not UNSET:
            field_dict["interval"] = interval

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

        n = d.pop("n")

        tier = JudgeWinRateTier(d.pop("tier"))

        win_rate = d.pop("win_rate")

        interval = cast(Literal["clt"] | Unset, d.pop("interval", UNSET))
        if interval != "clt" and not isinstance(interval, Unset):
            raise ValueError(f"interval must match const 'clt', got '{interval}'")

        judge_win_rate = cls(
            ci95=ci95,
            n=n,
            tier=tier,
            win_rate=win_rate,
            interval=interval,
        )

        judge_win_rate.additional_properties = d
        return judge_win_rate

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
