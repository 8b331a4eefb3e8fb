from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.self_preference_section_reason_type_0 import SelfPreferenceSectionReasonType0
from ..models.self_preference_section_tier import SelfPreferenceSectionTier

T = TypeVar("T", bound="SelfPreferenceSection")


@_attrs_define
class SelfPreferenceSection:
    """Mean excess share of own-family picks over non-conflicted judges on the same comparisons.

    Attributes:
        ci95 (list[float] | None):
        delta (float | None):
        n (int): comparisons where the judge was conflicted and others were not
        n_used (int):
        reason (None | SelfPreferenceSectionReasonType0):
        sampled (bool): the bootstrap used only the most recent n_used comparisons
        significant (bool):
        tier (SelfPreferenceSectionTier):
    """

    ci95: list[float] | None
    delta: float | None
    n: int
    n_used: int
    reason: None | SelfPreferenceSectionReasonType0
    sampled: bool
    significant: bool
    tier: SelfPreferenceSectionTier
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

        delta: float | None
        delta = self.delta

        n = self.n

        n_used = self.n_used

        reason: None | str
        if isinstance(self.reason, SelfPreferenceSectionReasonType0):
            reason = self.reason.value
        else:
            reason = self.reason

        sampled = self.sampled

        significant = self.significant

        tier = self.tier.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ci95": ci95,
                "delta": delta,
                "n": n,
                "n_used": n_used,
                "reason": reason,
                "sampled": sampled,
                "significant": significant,
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

        def _parse_delta(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        delta = _parse_delta(d.pop("delta"))

        n = d.pop("n")

        n_used = d.pop("n_used")

        def _parse_reason(data: object) -> None | SelfPreferenceSectionReasonType0:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_type_0 = SelfPreferenceSectionReasonType0(data)

                return reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SelfPreferenceSectionReasonType0, data)

        reason = _parse_reason(d.pop("reason"))

        sampled = d.pop("sampled")

        significant = d.pop("significant")

        tier = SelfPreferenceSectionTier(d.pop("tier"))

        self_preference_section = cls(
            ci95=ci95,
            delta=delta,
            n=n,
            n_used=n_used,
            reason=reason,
            sampled=sampled,
            significant=significant,
            tier=tier,
        )

        self_preference_section.additional_properties = d
        return self_preference_section

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
