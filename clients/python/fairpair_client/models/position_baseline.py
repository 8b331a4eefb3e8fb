from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.position_baseline_reason_type_0 import PositionBaselineReasonType0
from ..models.position_baseline_tier import PositionBaselineTier
from ..types import UNSET, Unset

T = TypeVar("T", bound="PositionBaseline")


@_attrs_define
class PositionBaseline:
    """First-slot preference of the judge against the humans' own on the same comparisons:
    gold comparisons with a decisive call of the judge and a decisive label whose display order
    the client gave (`shown_first`).

        Attributes:
            excess_first (float | None): mean over the comparisons of (judge's first-pick share − humans' first-slot share);
                not the difference of the pooled rates, which weigh calls and labels
            excess_first_ci95 (list[float] | None): percentile bootstrap over comparisons (1,000 resamples, seed 0)
            human_first_rate (float | None): share of those labels that picked the response shown first
            human_first_rate_ci95 (list[float] | None): Wilson over the labels
            human_labels (int): decisive labels with a known display order
            judge_calls (int): the judge's decisive design calls
            judge_first_pick_rate (float | None):
            n (int): comparisons (the tier's unit)
            n_used (int):
            reason (None | PositionBaselineReasonType0): `no_display_order` when no label on the judge's gold comparisons
                says which response was shown first
            sampled (bool): the bootstrap used only the most recent n_used comparisons
            tier (PositionBaselineTier):
            judge_first_pick_rate_ci95 (list[float] | None | Unset): Wilson over the calls, as if independent (a swap pair's
                two calls are not: a comparison-level interval would be wider)
    """

    excess_first: float | None
    excess_first_ci95: list[float] | None
    human_first_rate: float | None
    human_first_rate_ci95: list[float] | None
    human_labels: int
    judge_calls: int
    judge_first_pick_rate: float | None
    n: int
    n_used: int
    reason: None | PositionBaselineReasonType0
    sampled: bool
    tier: PositionBaselineTier
    judge_first_pick_rate_ci95: list[float] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        excess_first: float | None
        excess_first = self.excess_first

        excess_first_ci95: list[float] | None
        if isinstance(self.excess_first_ci95, list):
            excess_first_ci95 = []
            for excess_first_ci95_type_0_item_data in self.excess_first_ci95:
                excess_first_ci95_type_0_item: float
                excess_first_ci95_type_0_item = excess_first_ci95_type_0_item_data
                excess_first_ci95.append(excess_first_ci95_type_0_item)

        else:
            excess_first_ci95 = self.excess_first_ci95

        human_first_rate: float | None
        human_first_rate = self.human_first_rate

        human_first_rate_ci95: list[float] | None
        if isinstance(self.human_first_rate_ci95, list):
            human_first_rate_ci95 = []
            for human_first_rate_ci95_type_0_item_data in self.human_first_rate_ci95:
                human_first_rate_ci95_type_0_item: float
                human_first_rate_ci95_type_0_item = human_first_rate_ci95_type_0_item_data
                human_first_rate_ci95.append(human_first_rate_ci95_type_0_item)

        else:
            human_first_rate_ci95 = self.human_first_rate_ci95

        human_labels = self.human_labels

        judge_calls = self.judge_calls

        judge_first_pick_rate: float | None
        judge_first_pick_rate = self.judge_first_pick_rate

        n = self.n

        n_used = self.n_used

        reason: None | str
        if isinstance(self.reason, PositionBaselineReasonType0):
            reason = self.reason.value
        else:
            reason = self.reason

        sampled = self.sampled

        tier = self.tier.value

        judge_first_pick_rate_ci95: list[float] | None | Unset
        if isinstance(self.judge_first_pick_rate_ci95, Unset):
            judge_first_pick_rate_ci95 = UNSET
        elif isinstance(self.judge_first_pick_rate_ci95, list):
            judge_first_pick_rate_ci95 = []
            for judge_first_pick_rate_ci95_type_0_item_data in self.judge_first_pick_rate_ci95:
                judge_first_pick_rate_ci95_type_0_item: float
                judge_first_pick_rate_ci95_type_0_item = judge_first_pick_rate_ci95_type_0_item_data
                judge_first_pick_rate_ci95.append(judge_first_pick_rate_ci95_type_0_item)

        else:
            judge_first_pick_rate_ci95 = self.judge_first_pick_rate_ci95

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "excess_first": excess_first,
                "excess_first_ci95": excess_first_ci95,
                "human_first_rate": human_first_rate,
                "human_first_rate_ci95": human_first_rate_ci95,
                "human_labels": human_labels,
                "judge_calls": judge_calls,
                "judge_first_pick_rate": judge_first_pick_rate,
                "n": n,
                "n_used": n_used,
                "reason": reason,
                "sampled": sampled,
                "tier": tier,
            }
        )
        if judge_first_pick_rate_ci95 is not UNSET:
            field_dict["judge_first_pick_rate_ci95"] = judge_first_pick_rate_ci95

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_excess_first(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        excess_first = _parse_excess_first(d.pop("excess_first"))

        def _parse_excess_first_ci95(data: object) -> list[float] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                excess_first_ci95_type_0 = []
                _excess_first_ci95_type_0 = data
                for excess_first_ci95_type_0_item_data in _excess_first_ci95_type_0:

                    def _parse_excess_first_ci95_type_0_item(data: object) -> float:
                        return cast(float, data)

                    excess_first_ci95_type_0_item = _parse_excess_first_ci95_type_0_item(
                        excess_first_ci95_type_0_item_data
                    )

                    excess_first_ci95_type_0.append(excess_first_ci95_type_0_item)

                return excess_first_ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None, data)

        excess_first_ci95 = _parse_excess_first_ci95(d.pop("excess_first_ci95"))

        def _parse_human_first_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        human_first_rate = _parse_human_first_rate(d.pop("human_first_rate"))

        def _parse_human_first_rate_ci95(data: object) -> list[float] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                human_first_rate_ci95_type_0 = []
                _human_first_rate_ci95_type_0 = data
                for human_first_rate_ci95_type_0_item_data in _human_first_rate_ci95_type_0:

                    def _parse_human_first_rate_ci95_type_0_item(data: object) -> float:
                        return cast(float, data)

                    human_first_rate_ci95_type_0_item = _parse_human_first_rate_ci95_type_0_item(
                        human_first_rate_ci95_type_0_item_data
                    )

                    human_first_rate_ci95_type_0.append(human_first_rate_ci95_type_0_item)

                return human_first_rate_ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None, data)

        human_first_rate_ci95 = _parse_human_first_rate_ci95(d.pop("human_first_rate_ci95"))

        human_labels = d.pop("human_labels")

        judge_calls = d.pop("judge_calls")

        def _parse_judge_first_pick_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        judge_first_pick_rate = _parse_judge_first_pick_rate(d.pop("judge_first_pick_rate"))

        n = d.pop("n")

        n_used = d.pop("n_used")

        def _parse_reason(data: object) -> None | PositionBaselineReasonType0:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_type_0 = PositionBaselineReasonType0(data)

                return reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PositionBaselineReasonType0, data)

        reason = _parse_reason(d.pop("reason"))

        sampled = d.pop("sampled")

        tier = PositionBaselineTier(d.pop("tier"))

        def _parse_judge_first_pick_rate_ci95(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                judge_first_pick_rate_ci95_type_0 = []
                _judge_first_pick_rate_ci95_type_0 = data
                for judge_first_pick_rate_ci95_type_0_item_data in _judge_first_pick_rate_ci95_type_0:

                    def _parse_judge_first_pick_rate_ci95_type_0_item(data: object) -> float:
                        return cast(float, data)

                    judge_first_pick_rate_ci95_type_0_item = _parse_judge_first_pick_rate_ci95_type_0_item(
                        judge_first_pick_rate_ci95_type_0_item_data
                    )

                    judge_first_pick_rate_ci95_type_0.append(judge_first_pick_rate_ci95_type_0_item)

                return judge_first_pick_rate_ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None | Unset, data)

        judge_first_pick_rate_ci95 = _parse_judge_first_pick_rate_ci95(d.pop("judge_first_pick_rate_ci95", UNSET))

        position_baseline = cls(
            excess_first=excess_first,
            excess_first_ci95=excess_first_ci95,
            human_first_rate=human_first_rate,
            human_first_rate_ci95=human_first_rate_ci95,
            human_labels=human_labels,
            judge_calls=judge_calls,
            judge_first_pick_rate=judge_first_pick_rate,
            n=n,
            n_used=n_used,
            reason=reason,
            sampled=sampled,
            tier=tier,
            judge_first_pick_rate_ci95=judge_first_pick_rate_ci95,
        )

        position_baseline.additional_properties = d
        return position_baseline

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
