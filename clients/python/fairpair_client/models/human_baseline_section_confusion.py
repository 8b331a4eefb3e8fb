from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.human_baseline_section_confusion_additional_property import (
        HumanBaselineSectionConfusionAdditionalProperty,
    )


T = TypeVar("T", bound="HumanBaselineSectionConfusion")


@_attrs_define
class HumanBaselineSectionConfusion:
    """gold class -> the judge's verdict -> comparisons (counts at every tier)"""

    additional_properties: dict[str, HumanBaselineSectionConfusionAdditionalProperty] = _attrs_field(
        init=False, factory=dict
    )

    def to_dict(self) -> dict[str, Any]:

        field_dict: dict[str, Any] = {}
        for prop_name, prop in self.additional_properties.items():
            field_dict[prop_name] = prop.to_dict()

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.human_baseline_section_confusion_additional_property import (
            HumanBaselineSectionConfusionAdditionalProperty,  # noqa: PLC0415
        )

        d = dict(src_dict)
        human_baseline_section_confusion = cls()

        additional_properties = {}
        for prop_name, prop_dict in d.items():
            additional_property = HumanBaselineSectionConfusionAdditionalProperty.from_dict(prop_dict)

            additional_properties[prop_name] = additional_property

        human_baseline_section_confusion.additional_properties = additional_properties
        return human_baseline_section_confusion

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> HumanBaselineSectionConfusionAdditionalProperty:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: HumanBaselineSectionConfusionAdditionalProperty) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
