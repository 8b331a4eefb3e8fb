from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.length_baseline_tier import LengthBaselineTier

T = TypeVar("T", bound="LengthBaseline")


@_attrs_define
class LengthBaseline:
    """Longer-response preference of the judge against the humans on the same comparisons:
    gold comparisons with unequal lengths, a decisive gold and a decisive call of the judge.

        Attributes:
            excess_longer (float | None): mean over the comparisons of (judge's share − human's 0/1): judge_longer_rate −
                human_longer_rate
            excess_longer_ci95 (list[float] | None): percentile bootstrap over comparisons (1,000 resamples, seed 0)
            human_longer_rate (float | None): share whose gold is the longer response
            human_longer_rate_ci95 (list[float] | None): Wilson
            judge_longer_rate (float | None): mean over the comparisons of the share of the judge's decisive design calls
                that picked the longer response
            judge_longer_rate_ci95 (list[float] | None): percentile bootstrap over comparisons
            n (int): comparisons (the tier's unit)
            n_used (int):
            reason (Literal['insufficient_data'] | None):
            sampled (bool): the bootstraps used only the most recent n_used comparisons
            tier (LengthBaselineTier):
    """

    excess_longer: float | None
    excess_longer_ci95: list[float] | None
    human_longer_rate: float | None
    human_longer_rate_ci95: list[float] | None
    judge_longer_rate: float | None
    judge_longer_rate_ci95: list[float] | None
    n: int
    n_used: int
    reason: Literal["insufficient_data"] | None
    sampled: bool
    tier: LengthBaselineTier
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        excess_longer: float | None
        excess_longer = self.excess_longer

        excess_longer_ci95: list[float] | None
        if isinstance(self.excess_longer_ci95, list):
            excess_longer_ci95 = []
            for excess_longer_ci95_type_0_item_data in self.excess_longer_ci95:
                excess_longer_ci95_type_0_item: float
                excess_longer_ci95_type_0_item = excess_longer_ci95_type_0_item_data
                excess_longer_ci95.append(excess_longer_ci95_type_0_item)

        else:
            excess_longer_ci95 = self.excess_longer_ci95

        human_longer_rate: float | None
        human_longer_rate = self.human_longer_rate

        human_longer_rate_ci95: list[float] | None
        if isinstance(self.human_longer_rate_ci95, list):
            human_longer_rate_ci95 = []
            for human_longer_rate_ci95_type_0_item_data in self.human_longer_rate_ci95:
                human_longer_rate_ci95_type_0_item: float
                human_longer_rate_ci95_type_0_item = human_longer_rate_ci95_type_0_item_data
                human_longer_rate_ci95.append(human_longer_rate_ci95_type_0_item)

        else:
            human_longer_rate_ci95 = self.human_longer_rate_ci95

        judge_longer_rate: float | None
        judge_longer_rate = self.judge_longer_rate

        judge_longer_rate_ci95: list[float] | None
        if isinstance(self.judge_longer_rate_ci95, list):
            judge_longer_rate_ci95 = []
            for judge_longer_rate_ci95_type_0_item_data in self.judge_longer_rate_ci95:
                judge_longer_rate_ci95_type_0_item: float
                judge_longer_rate_ci95_type_0_item = judge_longer_rate_ci95_type_0_item_data
                judge_longer_rate_ci95.append(judge_longer_rate_ci95_type_0_item)

        else:
            judge_longer_rate_ci95 = self.judge_longer_rate_ci95

        n = self.n

        n_used = self.n_used

        reason: Literal["insufficient_data"] | None
        reason = self.reason

        sampled = self.sampled

        tier = self.tier.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "excess_longer": excess_longer,
                "excess_longer_ci95": excess_longer_ci95,
                "human_longer_rate": human_longer_rate,
                "human_longer_rate_ci95": human_longer_rate_ci95,
                "judge_longer_rate": judge_longer_rate,
                "judge_longer_rate_ci95": judge_longer_rate_ci95,
                "n": n,
                "n_used": n_used,
                "reason": reason,
                "sampled": sampled,
                "tier": tier,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_excess_longer(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        excess_longer = _parse_excess_longer(d.pop("excess_longer"))

        def _parse_excess_longer_ci95(data: object) -> list[float] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                excess_longer_ci95_type_0 = []
                _excess_longer_ci95_type_0 = data
                for excess_longer_ci95_type_0_item_data in _excess_longer_ci95_type_0:

                    def _parse_excess_longer_ci95_type_0_item(data: object) -> float:
                        return cast(float, data)

                    excess_longer_ci95_type_0_item = _parse_excess_longer_ci95_type_0_item(
                        excess_longer_ci95_type_0_item_data
                    )

                    excess_longer_ci95_type_0.append(excess_longer_ci95_type_0_item)

                return excess_longer_ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None, data)

        excess_longer_ci95 = _parse_excess_longer_ci95(d.pop("excess_longer_ci95"))

        def _parse_human_longer_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        human_longer_rate = _parse_human_longer_rate(d.pop("human_longer_rate"))

        def _parse_human_longer_rate_ci95(data: object) -> list[float] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                human_longer_rate_ci95_type_0 = []
                _human_longer_rate_ci95_type_0 = data
                for human_longer_rate_ci95_type_0_item_data in _human_longer_rate_ci95_type_0:

                    def _parse_human_longer_rate_ci95_type_0_item(data: object) -> float:
                        return cast(float, data)

                    human_longer_rate_ci95_type_0_item = _parse_human_longer_rate_ci95_type_0_item(
                        human_longer_rate_ci95_type_0_item_data
                    )

                    human_longer_rate_ci95_type_0.append(human_longer_rate_ci95_type_0_item)

                return human_longer_rate_ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None, data)

        human_longer_rate_ci95 = _parse_human_longer_rate_ci95(d.pop("human_longer_rate_ci95"))

        def _parse_judge_longer_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        judge_longer_rate = _parse_judge_longer_rate(d.pop("judge_longer_rate"))

        def _parse_judge_longer_rate_ci95(data: object) -> list[float] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                judge_longer_rate_ci95_type_0 = []
                _judge_longer_rate_ci95_type_0 = data
                for judge_longer_rate_ci95_type_0_item_data in _judge_longer_rate_ci95_type_0:

                    def _parse_judge_longer_rate_ci95_type_0_item(data: object) -> float:
                        return cast(float, data)

                    judge_longer_rate_ci95_type_0_item = _parse_judge_longer_rate_ci95_type_0_item(
                        judge_longer_rate_ci95_type_0_item_data
                    )

                    judge_longer_rate_ci95_type_0.append(judge_longer_rate_ci95_type_0_item)

                return judge_longer_rate_ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None, data)

        judge_longer_rate_ci95 = _parse_judge_longer_rate_ci95(d.pop("judge_longer_rate_ci95"))

        n = d.pop("n")

        n_used = d.pop("n_used")

        def _parse_reason(data: object) -> Literal["insufficient_data"] | None:
            if data is None:
                return data
            reason_type_0 = cast(Literal["insufficient_data"], data)
            if reason_type_0 != "insufficient_data":
                raise ValueError(f"reason_type_0 must match const 'insufficient_data', got '{reason_type_0}'")
            return reason_type_0
            return cast(Literal["insufficient_data"] | None, data)

        reason = _parse_reason(d.pop("reason"))

        sampled = d.pop("sampled")

        tier = LengthBaselineTier(d.pop("tier"))

        length_baseline = cls(
            excess_longer=excess_longer,
            excess_longer_ci95=excess_longer_ci95,
            human_longer_rate=human_longer_rate,
            human_longer_rate_ci95=human_longer_rate_ci95,
            judge_longer_rate=judge_longer_rate,
            judge_longer_rate_ci95=judge_longer_rate_ci95,
            n=n,
            n_used=n_used,
            reason=reason,
            sampled=sampled,
            tier=tier,
        )

        length_baseline.additional_properties = d
        return length_baseline

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
