from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.label_pair_stats_reason_type_0 import LabelPairStatsReasonType0
from ..models.label_pair_stats_tier import LabelPairStatsTier

T = TypeVar("T", bound="LabelPairStats")


@_attrs_define
class LabelPairStats:
    """One label pair: the share of decisive calls that picked its second label.

    Attributes:
        ci95 (list[float] | None):
        n (int):
        p_adjusted (float | None): Holm within the judge, over its label pairs
        p_value (float | None):
        rate (float | None):
        reason (LabelPairStatsReasonType0 | None):
        tier (LabelPairStatsTier):
    """

    ci95: list[float] | None
    n: int
    p_adjusted: float | None
    p_value: float | None
    rate: float | None
    reason: LabelPairStatsReasonType0 | None
    tier: LabelPairStatsTier
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        ci95: list[float] | None
        if isinstance(self.ci95, list):
            ci95 = []
            for ci95_type_0_item_data in self.ci95:
                ci95_type_0_item: float
                ci95_type_0_item = ci95_type_0_item_data
                ci95.append(ci95_type_0_item)

        else:
            ci95 = self.ci95

        n = self.n

        p_adjusted: float | None
        p_adjusted = self.p_adjusted

        p_value: float | None
        p_value = self.p_value

        rate: float | None
        rate = self.rate

        reason: None | str
        if isinstance(self.reason, LabelPairStatsReasonType0):
            reason = self.reason.value
        else:
            reason = self.reason

        tier = self.tier.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ci95": ci95,
                "n": n,
                "p_adjusted": p_adjusted,
                "p_value": p_value,
                "rate": rate,
                "reason": reason,
                "tier": tier,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_ci95(data: object) -> list[float] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                ci95_type_0 = []
                _ci95_type_0 = data
                for ci95_type_0_item_data in _ci95_type_0:

                    def _parse_ci95_type_0_item(data: object) -> float:
                        return cast(float, data)

                    ci95_type_0_item = _parse_ci95_type_0_item(ci95_type_0_item_data)

                    ci95_type_0.append(ci95_type_0_item)

                return ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None, data)

        ci95 = _parse_ci95(d.pop("ci95"))

        n = d.pop("n")

        def _parse_p_adjusted(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        p_adjusted = _parse_p_adjusted(d.pop("p_adjusted"))

        def _parse_p_value(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        p_value = _parse_p_value(d.pop("p_value"))

        def _parse_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        rate = _parse_rate(d.pop("rate"))

        def _parse_reason(data: object) -> LabelPairStatsReasonType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_type_0 = LabelPairStatsReasonType0(data)

                return reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LabelPairStatsReasonType0 | None, data)

        reason = _parse_reason(d.pop("reason"))

        tier = LabelPairStatsTier(d.pop("tier"))

        label_pair_stats = cls(
            ci95=ci95,
            n=n,
            p_adjusted=p_adjusted,
            p_value=p_value,
            rate=rate,
            reason=reason,
            tier=tier,
        )

        label_pair_stats.additional_properties = d
        return label_pair_stats

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
