from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.position_section_reason_type_0 import PositionSectionReasonType0
from ..models.position_section_test_type_0 import PositionSectionTestType0
from ..models.position_section_tier import PositionSectionTier
from ..types import UNSET, Unset

T = TypeVar("T", bound="PositionSection")


@_attrs_define
class PositionSection:
    """First-slot preference over decisive design calls.

    Attributes:
        ci95 (list[float] | None):
        first_pick_rate (float | None):
        n (int): decisive design calls
        p_adjusted (float | None):
        p_value (float | None):
        reason (None | PositionSectionReasonType0):
        significant (bool):
        test (None | PositionSectionTestType0):
        tie_rate (float | None):
        tier (PositionSectionTier):
        z (float | None):
        tie_rate_ci95 (list[float] | None | Unset):
    """

    ci95: list[float] | None
    first_pick_rate: float | None
    n: int
    p_adjusted: float | None
    p_value: float | None
    reason: None | PositionSectionReasonType0
    significant: bool
    test: None | PositionSectionTestType0
    tie_rate: float | None
    tier: PositionSectionTier
    z: float | None
    tie_rate_ci95: list[float] | None | Unset = UNSET
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

        first_pick_rate: float | None
        first_pick_rate = self.first_pick_rate

        n = self.n

        p_adjusted: float | None
        p_adjusted = self.p_adjusted

        p_value: float | None
        p_value = self.p_value

        reason: None | str
        if isinstance(self.reason, PositionSectionReasonType0):
            reason = self.reason.value
        else:
            reason = self.reason

        significant = self.significant

        test: None | str
        if isinstance(self.test, PositionSectionTestType0):
            test = self.test.value
        else:
            test = self.test

        tie_rate: float | None
        tie_rate = self.tie_rate

        tier = self.tier.value

        z: float | None
        z = self.z

        tie_rate_ci95: list[float] | None | Unset
        if isinstance(self.tie_rate_ci95, Unset):
            tie_rate_ci95 = UNSET
        elif isinstance(self.tie_rate_ci95, list):
            tie_rate_ci95 = []
            for tie_rate_ci95_type_0_item_data in self.tie_rate_ci95:
                tie_rate_ci95_type_0_item: float
                tie_rate_ci95_type_0_item = tie_rate_ci95_type_0_item_data
                tie_rate_ci95.append(tie_rate_ci95_type_0_item)

        else:
            tie_rate_ci95 = self.tie_rate_ci95

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ci95": ci95,
                "first_pick_rate": first_pick_rate,
                "n": n,
                "p_adjusted": p_adjusted,
                "p_value": p_value,
                "reason": reason,
                "significant": significant,
                "test": test,
                "tie_rate": tie_rate,
                "tier": tier,
                "z": z,
            }
        )
        if tie_rate_ci95 is not UNSET:
            field_dict["tie_rate_ci95"] = tie_rate_ci95

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

        def _parse_first_pick_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        first_pick_rate = _parse_first_pick_rate(d.pop("first_pick_rate"))

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

        def _parse_reason(data: object) -> None | PositionSectionReasonType0:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_type_0 = PositionSectionReasonType0(data)

                return reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PositionSectionReasonType0, data)

        reason = _parse_reason(d.pop("reason"))

        significant = d.pop("significant")

        def _parse_test(data: object) -> None | PositionSectionTestType0:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                test_type_0 = PositionSectionTestType0(data)

                return test_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PositionSectionTestType0, data)

        test = _parse_test(d.pop("test"))

        def _parse_tie_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        tie_rate = _parse_tie_rate(d.pop("tie_rate"))

        tier = PositionSectionTier(d.pop("tier"))

        def _parse_z(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        z = _parse_z(d.pop("z"))

        def _parse_tie_rate_ci95(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                tie_rate_ci95_type_0 = []
                _tie_rate_ci95_type_0 = data
                for tie_rate_ci95_type_0_item_data in _tie_rate_ci95_type_0:

                    def _parse_tie_rate_ci95_type_0_item(data: object) -> float:
                        return cast(float, data)

                    tie_rate_ci95_type_0_item = _parse_tie_rate_ci95_type_0_item(tie_rate_ci95_type_0_item_data)

                    tie_rate_ci95_type_0.append(tie_rate_ci95_type_0_item)

                return tie_rate_ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None | Unset, data)

        tie_rate_ci95 = _parse_tie_rate_ci95(d.pop("tie_rate_ci95", UNSET))

        position_section = cls(
            ci95=ci95,
            first_pick_rate=first_pick_rate,
            n=n,
            p_adjusted=p_adjusted,
            p_value=p_value,
            reason=reason,
            significant=significant,
            test=test,
            tie_rate=tie_rate,
            tier=tier,
            z=z,
            tie_rate_ci95=tie_rate_ci95,
        )

        position_section.additional_properties = d
        return position_section

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
