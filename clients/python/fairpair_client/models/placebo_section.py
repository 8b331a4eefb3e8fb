from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.placebo_section_reason_type_0 import PlaceboSectionReasonType0
from ..models.placebo_section_tier import PlaceboSectionTier
from ..types import UNSET, Unset

T = TypeVar("T", bound="PlaceboSection")


@_attrs_define
class PlaceboSection:
    """Position and label preference measured on identical texts.

    Attributes:
        ci95 (list[float] | None):
        first_pick_rate (float | None):
        n (int): decisive design calls on placebo comparisons
        p_value (float | None):
        reason (None | PlaceboSectionReasonType0):
        second_label_pick_rate (float | None):
        tier (PlaceboSectionTier):
        second_label_ci95 (list[float] | None | Unset):
        second_label_p_value (float | None | Unset):
    """

    ci95: list[float] | None
    first_pick_rate: float | None
    n: int
    p_value: float | None
    reason: None | PlaceboSectionReasonType0
    second_label_pick_rate: float | None
    tier: PlaceboSectionTier
    second_label_ci95: list[float] | None | Unset = UNSET
    second_label_p_value: float | None | Unset = UNSET
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

        p_value: float | None
        p_value = self.p_value

        reason: None | str
        if isinstance(self.reason, PlaceboSectionReasonType0):
            reason = self.reason.value
        else:
            reason = self.reason

        second_label_pick_rate: float | None
        second_label_pick_rate = self.second_label_pick_rate

        tier = self.tier.value

        second_label_ci95: list[float] | None | Unset
        if isinstance(self.second_label_ci95, Unset):
            second_label_ci95 = UNSET
        elif isinstance(self.second_label_ci95, list):
            second_label_ci95 = []
            for second_label_ci95_type_0_item_data in self.second_label_ci95:
                second_label_ci95_type_0_item: float
                second_label_ci95_type_0_item = second_label_ci95_type_0_item_data
                second_label_ci95.append(second_label_ci95_type_0_item)

        else:
            second_label_ci95 = self.second_label_ci95

        second_label_p_value: float | None | Unset
        if isinstance(self.second_label_p_value, Unset):
            second_label_p_value = UNSET
        else:
            second_label_p_value = self.second_label_p_value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ci95": ci95,
                "first_pick_rate": first_pick_rate,
                "n": n,
                "p_value": p_value,
                "reason": reason,
                "second_label_pick_rate": second_label_pick_rate,
                "tier": tier,
            }
        )
        if second_label_ci95 is not UNSET:
            field_dict["second_label_ci95"] = second_label_ci95
        if second_label_p_value is not UNSET:
            field_dict["second_label_p_value"] = second_label_p_value

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

        def _parse_p_value(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        p_value = _parse_p_value(d.pop("p_value"))

        def _parse_reason(data: object) -> None | PlaceboSectionReasonType0:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_type_0 = PlaceboSectionReasonType0(data)

                return reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PlaceboSectionReasonType0, data)

        reason = _parse_reason(d.pop("reason"))

        def _parse_second_label_pick_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        second_label_pick_rate = _parse_second_label_pick_rate(d.pop("second_label_pick_rate"))

        tier = PlaceboSectionTier(d.pop("tier"))

        def _parse_second_label_ci95(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                second_label_ci95_type_0 = []
                _second_label_ci95_type_0 = data
                for second_label_ci95_type_0_item_data in _second_label_ci95_type_0:

                    def _parse_second_label_ci95_type_0_item(data: object) -> float:
                        return cast(float, data)

                    second_label_ci95_type_0_item = _parse_second_label_ci95_type_0_item(
                        second_label_ci95_type_0_item_data
                    )

                    second_label_ci95_type_0.append(second_label_ci95_type_0_item)

                return second_label_ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None | Unset, data)

        second_label_ci95 = _parse_second_label_ci95(d.pop("second_label_ci95", UNSET))

        def _parse_second_label_p_value(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        second_label_p_value = _parse_second_label_p_value(d.pop("second_label_p_value", UNSET))

        placebo_section = cls(
            ci95=ci95,
            first_pick_rate=first_pick_rate,
            n=n,
            p_value=p_value,
            reason=reason,
            second_label_pick_rate=second_label_pick_rate,
            tier=tier,
            second_label_ci95=second_label_ci95,
            second_label_p_value=second_label_p_value,
        )

        placebo_section.additional_properties = d
        return placebo_section

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
