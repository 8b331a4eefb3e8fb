from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.judge_report_flags_item import JudgeReportFlagsItem

if TYPE_CHECKING:
    from ..models.call_counts import CallCounts
    from ..models.consistency_section import ConsistencySection
    from ..models.label_section import LabelSection
    from ..models.length_section import LengthSection
    from ..models.placebo_section import PlaceboSection
    from ..models.position_section import PositionSection
    from ..models.self_preference_section import SelfPreferenceSection


T = TypeVar("T", bound="JudgeReport")


@_attrs_define
class JudgeReport:
    """Every figure of one judge.

    Attributes:
        calls (CallCounts): Every call of the judge (all rounds), placebo comparisons excluded.
        consistency (ConsistencySection): Swap consistency over swap pairs.
        flags (list[JudgeReportFlagsItem]):
        judge (str):
        label (LabelSection): Label preference, pooled over the label pairs and per pair.
        length (LengthSection): Length preference: descriptive longer-win rate and Spearman ρ(Δlen, y_c).
        placebo (PlaceboSection): Position and label preference measured on identical texts.
        position (PositionSection): First-slot preference over decisive design calls.
        self_preference (SelfPreferenceSection): Mean excess share of own-family picks over non-conflicted judges on the
            same comparisons.
        versions (list[int]):
    """

    calls: CallCounts
    consistency: ConsistencySection
    flags: list[JudgeReportFlagsItem]
    judge: str
    label: LabelSection
    length: LengthSection
    placebo: PlaceboSection
    position: PositionSection
    self_preference: SelfPreferenceSection
    versions: list[int]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        calls = self.calls.to_dict()

        consistency = self.consistency.to_dict()

        flags = []
        for flags_item_data in self.flags:
            flags_item = flags_item_data.value
            flags.append(flags_item)

        judge = self.judge

        label = self.label.to_dict()

        length = self.length.to_dict()

        placebo = self.placebo.to_dict()

        position = self.position.to_dict()

        self_preference = self.self_preference.to_dict()

        versions = self.versions

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "calls": calls,
                "consistency": consistency,
                "flags": flags,
                "judge": judge,
                "label": label,
                "length": length,
                "placebo": placebo,
                "position": position,
                "self_preference": self_preference,
                "versions": versions,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.call_counts import CallCounts  # noqa: PLC0415
        from ..models.consistency_section import ConsistencySection  # noqa: PLC0415
        from ..models.label_section import LabelSection  # noqa: PLC0415
        from ..models.length_section import LengthSection  # noqa: PLC0415
        from ..models.placebo_section import PlaceboSection  # noqa: PLC0415
        from ..models.position_section import PositionSection  # noqa: PLC0415
        from ..models.self_preference_section import SelfPreferenceSection  # noqa: PLC0415

        d = dict(src_dict)
        calls = CallCounts.from_dict(d.pop("calls"))

        consistency = ConsistencySection.from_dict(d.pop("consistency"))

        flags = []
        _flags = d.pop("flags")
        for flags_item_data in _flags:
            flags_item = JudgeReportFlagsItem(flags_item_data)

            flags.append(flags_item)

        judge = d.pop("judge")

        label = LabelSection.from_dict(d.pop("label"))

        length = LengthSection.from_dict(d.pop("length"))

        placebo = PlaceboSection.from_dict(d.pop("placebo"))

        position = PositionSection.from_dict(d.pop("position"))

        self_preference = SelfPreferenceSection.from_dict(d.pop("self_preference"))

        versions = cast(list[int], d.pop("versions"))

        judge_report = cls(
            calls=calls,
            consistency=consistency,
            flags=flags,
            judge=judge,
            label=label,
            length=length,
            placebo=placebo,
            position=position,
            self_preference=self_preference,
            versions=versions,
        )

        judge_report.additional_properties = d
        return judge_report

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
