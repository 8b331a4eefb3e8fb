from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.label_section_reason_type_0 import LabelSectionReasonType0
from ..models.label_section_tier import LabelSectionTier

if TYPE_CHECKING:
    from ..models.label_section_by_pair import LabelSectionByPair


T = TypeVar("T", bound="LabelSection")


@_attrs_define
class LabelSection:
    """Label preference, pooled over the label pairs and per pair.

    Attributes:
        by_pair (LabelSectionByPair):
        ci95 (list[float] | None):
        label_p (float | None):
        n (int): decisive design calls
        p_adjusted (float | None):
        reason (LabelSectionReasonType0 | None):
        second_label_pick_rate (float | None):
        significant (bool):
        tier (LabelSectionTier):
    """

    by_pair: LabelSectionByPair
    ci95: list[float] | None
    label_p: float | None
    n: int
    p_adjusted: float | None
    reason: LabelSectionReasonType0 | None
    second_label_pick_rate: float | None
    significant: bool
    tier: LabelSectionTier
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        by_pair = self.by_pair.to_dict()

        ci95: list[float] | None
        if isinstance(self.ci95, list):
            ci95 = []
            for ci95_type_0_item_data in self.ci95:
                ci95_type_0_item: float
                ci95_type_0_item = ci95_type_0_item_data
                ci95.append(ci95_type_0_item)

        else:
            ci95 = self.ci95

        label_p: float | None
        label_p = self.label_p

        n = self.n

        p_adjusted: float | None
        p_adjusted = self.p_adjusted

        reason: None | str
        if isinstance(self.reason, LabelSectionReasonType0):
            reason = self.reason.value
        else:
            reason = self.reason

        second_label_pick_rate: float | None
        second_label_pick_rate = self.second_label_pick_rate

        significant = self.significant

        tier = self.tier.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "by_pair": by_pair,
                "ci95": ci95,
                "label_p": label_p,
                "n": n,
                "p_adjusted": p_adjusted,
                "reason": reason,
                "second_label_pick_rate": second_label_pick_rate,
                "significant": significant,
                "tier": tier,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.label_section_by_pair import LabelSectionByPair  # noqa: PLC0415

        d = dict(src_dict)
        by_pair = LabelSectionByPair.from_dict(d.pop("by_pair"))

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

        def _parse_label_p(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        label_p = _parse_label_p(d.pop("label_p"))

        n = d.pop("n")

        def _parse_p_adjusted(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        p_adjusted = _parse_p_adjusted(d.pop("p_adjusted"))

        def _parse_reason(data: object) -> LabelSectionReasonType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_type_0 = LabelSectionReasonType0(data)

                return reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LabelSectionReasonType0 | None, data)

        reason = _parse_reason(d.pop("reason"))

        def _parse_second_label_pick_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        second_label_pick_rate = _parse_second_label_pick_rate(d.pop("second_label_pick_rate"))

        significant = d.pop("significant")

        tier = LabelSectionTier(d.pop("tier"))

        label_section = cls(
            by_pair=by_pair,
            ci95=ci95,
            label_p=label_p,
            n=n,
            p_adjusted=p_adjusted,
            reason=reason,
            second_label_pick_rate=second_label_pick_rate,
            significant=significant,
            tier=tier,
        )

        label_section.additional_properties = d
        return label_section

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
