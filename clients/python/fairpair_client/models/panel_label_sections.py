from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.human_agreement_section import HumanAgreementSection


T = TypeVar("T", bound="PanelLabelSections")


@_attrs_define
class PanelLabelSections:
    """The service's final (panel) verdict against the gold labels.

    Attributes:
        human_agreement (HumanAgreementSection): Agreement of a judge (or the panel's final verdict) with the gold
            labels.
    """

    human_agreement: HumanAgreementSection
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        human_agreement = self.human_agreement.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "human_agreement": human_agreement,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.human_agreement_section import HumanAgreementSection  # noqa: PLC0415

        d = dict(src_dict)
        human_agreement = HumanAgreementSection.from_dict(d.pop("human_agreement"))

        panel_label_sections = cls(
            human_agreement=human_agreement,
        )

        panel_label_sections.additional_properties = d
        return panel_label_sections

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
