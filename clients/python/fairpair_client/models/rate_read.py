from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.rate_read_tier_type_0 import RateReadTierType0
from ..types import UNSET, Unset

T = TypeVar("T", bound="RateRead")


@_attrs_define
class RateRead:
    """k of n, the rate and its 95% CI; both null when n = 0 or the tier is `insufficient`.

    Attributes:
        ci95 (list[float] | None):
        k (int):
        n (int):
        value (float | None):
        reason (None | str | Unset): `insufficient_data` when withheld
        tier (None | RateReadTierType0 | Unset): evidence tier by the figure's unit (STATISTICS.md's bounds: labelled
            items for accuracy, swap pairs for consistency, decisive calls for the first-pick rate)
    """

    ci95: list[float] | None
    k: int
    n: int
    value: float | None
    reason: None | str | Unset = UNSET
    tier: None | RateReadTierType0 | Unset = UNSET
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

        k = self.k

        n = self.n

        value: float | None
        value = self.value

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        tier: None | str | Unset
        if isinstance(self.tier, Unset):
            tier = UNSET
        elif isinstance(self.tier, RateReadTierType0):
            tier = self.tier.value
        else:
            tier = self.tier

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ci95": ci95,
                "k": k,
                "n": n,
                "value": value,
            }
        )
        if reason is not UNSET:
            field_dict["reason"] = reason
        if tier is not UNSET:
            field_dict["tier"] = tier

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

        k = d.pop("k")

        n = d.pop("n")

        def _parse_value(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        value = _parse_value(d.pop("value"))

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        def _parse_tier(data: object) -> None | RateReadTierType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                tier_type_0 = RateReadTierType0(data)

                return tier_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RateReadTierType0 | Unset, data)

        tier = _parse_tier(d.pop("tier", UNSET))

        rate_read = cls(
            ci95=ci95,
            k=k,
            n=n,
            value=value,
            reason=reason,
            tier=tier,
        )

        rate_read.additional_properties = d
        return rate_read

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
