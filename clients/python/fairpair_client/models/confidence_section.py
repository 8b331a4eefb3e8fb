from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.confidence_section_tier import ConfidenceSectionTier

if TYPE_CHECKING:
    from ..models.confidence_section_by_source import ConfidenceSectionBySource


T = TypeVar("T", bound="ConfidenceSection")


@_attrs_define
class ConfidenceSection:
    """Does the judge's confidence track its accuracy against the gold labels?

    Attributes:
        by_source (ConfidenceSectionBySource):
        n_comparisons (int): gold-labelled comparisons with a confident call (the tier's unit)
        reason (Literal['insufficient_data'] | None):
        tier (ConfidenceSectionTier):
    """

    by_source: ConfidenceSectionBySource
    n_comparisons: int
    reason: Literal["insufficient_data"] | None
    tier: ConfidenceSectionTier
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        by_source = self.by_source.to_dict()

        n_comparisons = self.n_comparisons

        reason: Literal["insufficient_data"] | None
        reason = self.reason

        tier = self.tier.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "by_source": by_source,
                "n_comparisons": n_comparisons,
                "reason": reason,
                "tier": tier,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.confidence_section_by_source import ConfidenceSectionBySource  # noqa: PLC0415

        d = dict(src_dict)
        by_source = ConfidenceSectionBySource.from_dict(d.pop("by_source"))

        n_comparisons = d.pop("n_comparisons")

        def _parse_reason(data: object) -> Literal["insufficient_data"] | None:
            if data is None:
                return data
            reason_type_0 = cast(Literal["insufficient_data"], data)
            if reason_type_0 != "insufficient_data":
                raise ValueError(f"reason_type_0 must match const 'insufficient_data', got '{reason_type_0}'")
            return reason_type_0
            return cast(Literal["insufficient_data"] | None, data)

        reason = _parse_reason(d.pop("reason"))

        tier = ConfidenceSectionTier(d.pop("tier"))

        confidence_section = cls(
            by_source=by_source,
            n_comparisons=n_comparisons,
            reason=reason,
            tier=tier,
        )

        confidence_section.additional_properties = d
        return confidence_section

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
