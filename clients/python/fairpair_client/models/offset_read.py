from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.offset_read_classification_type_0 import OffsetReadClassificationType0
from ..models.offset_read_reason_type_0 import OffsetReadReasonType0
from ..models.offset_read_tier import OffsetReadTier

T = TypeVar("T", bound="OffsetRead")


@_attrs_define
class OffsetRead:
    """A reviewer's offset from the last refit; null with a reason where it is not estimated.

    Attributes:
        ci95 (list[float] | None):
        classification (None | OffsetReadClassificationType0):
        offset (float | None):
        reason (None | OffsetReadReasonType0):
        tier (OffsetReadTier):
    """

    ci95: list[float] | None
    classification: None | OffsetReadClassificationType0
    offset: float | None
    reason: None | OffsetReadReasonType0
    tier: OffsetReadTier
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

        classification: None | str
        if isinstance(self.classification, OffsetReadClassificationType0):
            classification = self.classification.value
        else:
            classification = self.classification

        offset: float | None
        offset = self.offset

        reason: None | str
        if isinstance(self.reason, OffsetReadReasonType0):
            reason = self.reason.value
        else:
            reason = self.reason

        tier = self.tier.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ci95": ci95,
                "classification": classification,
                "offset": offset,
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

        def _parse_classification(data: object) -> None | OffsetReadClassificationType0:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                classification_type_0 = OffsetReadClassificationType0(data)

                return classification_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | OffsetReadClassificationType0, data)

        classification = _parse_classification(d.pop("classification"))

        def _parse_offset(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        offset = _parse_offset(d.pop("offset"))

        def _parse_reason(data: object) -> None | OffsetReadReasonType0:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_type_0 = OffsetReadReasonType0(data)

                return reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | OffsetReadReasonType0, data)

        reason = _parse_reason(d.pop("reason"))

        tier = OffsetReadTier(d.pop("tier"))

        offset_read = cls(
            ci95=ci95,
            classification=classification,
            offset=offset,
            reason=reason,
            tier=tier,
        )

        offset_read.additional_properties = d
        return offset_read

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
