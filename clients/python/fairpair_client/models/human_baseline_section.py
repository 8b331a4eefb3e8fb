from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.human_baseline_section_confusion import HumanBaselineSectionConfusion
    from ..models.length_baseline import LengthBaseline
    from ..models.position_baseline import PositionBaseline


T = TypeVar("T", bound="HumanBaselineSection")


@_attrs_define
class HumanBaselineSection:
    """The judge's length and position preferences measured against what the labelers
    preferred on the same comparisons, and its verdicts against the gold classes.

        Attributes:
            confusion (HumanBaselineSectionConfusion): gold class -> the judge's verdict -> comparisons (counts at every
                tier)
            length (LengthBaseline): Longer-response preference of the judge against the humans on the same comparisons:
                gold comparisons with unequal lengths, a decisive gold and a decisive call of the judge.
            n_verdicts (int): gold-labelled comparisons with a result of the judge
            position (PositionBaseline): First-slot preference of the judge against the humans' own on the same comparisons:
                gold comparisons with a decisive call of the judge and a decisive label whose display order
                the client gave (`shown_first`).
    """

    confusion: HumanBaselineSectionConfusion
    length: LengthBaseline
    n_verdicts: int
    position: PositionBaseline
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        confusion = self.confusion.to_dict()

        length = self.length.to_dict()

        n_verdicts = self.n_verdicts

        position = self.position.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "confusion": confusion,
                "length": length,
                "n_verdicts": n_verdicts,
                "position": position,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.human_baseline_section_confusion import HumanBaselineSectionConfusion  # noqa: PLC0415
        from ..models.length_baseline import LengthBaseline  # noqa: PLC0415
        from ..models.position_baseline import PositionBaseline  # noqa: PLC0415

        d = dict(src_dict)
        confusion = HumanBaselineSectionConfusion.from_dict(d.pop("confusion"))

        length = LengthBaseline.from_dict(d.pop("length"))

        n_verdicts = d.pop("n_verdicts")

        position = PositionBaseline.from_dict(d.pop("position"))

        human_baseline_section = cls(
            confusion=confusion,
            length=length,
            n_verdicts=n_verdicts,
            position=position,
        )

        human_baseline_section.additional_properties = d
        return human_baseline_section

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
