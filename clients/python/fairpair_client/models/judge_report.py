from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.judge_report_flags_item import JudgeReportFlagsItem
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.call_counts import CallCounts
    from ..models.canary_drift_read import CanaryDriftRead
    from ..models.confidence_section import ConfidenceSection
    from ..models.consistency_section import ConsistencySection
    from ..models.human_agreement_section import HumanAgreementSection
    from ..models.human_baseline_section import HumanBaselineSection
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
        calls (CallCounts): Every call of the judge (all rounds), placebo comparisons included: the failure rate
            counts every failed call; the bias sections leave placebo comparisons out.
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
        canaries (list[CanaryDriftRead] | Unset): the judge's latest settled run of each drift canary, whatever the
            window: its figures on the canary's items and `drift`, set from the run that flagged a change against its
            previous run or its baseline until an admin acknowledges it (details: GET /v1/canaries/{name}/runs)
        confidence (ConfidenceSection | None | Unset):
        human_agreement (HumanAgreementSection | None | Unset):
        human_baseline (HumanBaselineSection | None | Unset):
        provider_models (list[str] | Unset): distinct models the provider reported on the judge's calls in the window
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
    canaries: list[CanaryDriftRead] | Unset = UNSET
    confidence: ConfidenceSection | None | Unset = UNSET
    human_agreement: HumanAgreementSection | None | Unset = UNSET
    human_baseline: HumanBaselineSection | None | Unset = UNSET
    provider_models: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.confidence_section import ConfidenceSection  # noqa: PLC0415
        from ..models.human_agreement_section import HumanAgreementSection  # noqa: PLC0415
        from ..models.human_baseline_section import HumanBaselineSection  # noqa: PLC0415

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

        canaries: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.canaries, Unset):
            canaries = []
            for canaries_item_data in self.canaries:
                canaries_item = canaries_item_data.to_dict()
                canaries.append(canaries_item)

        confidence: dict[str, Any] | None | Unset
        if isinstance(self.confidence, Unset):
            confidence = UNSET
        elif isinstance(self.confidence, ConfidenceSection):
            confidence = self.confidence.to_dict()
        else:
            confidence = self.confidence

        human_agreement: dict[str, Any] | None | Unset
        if isinstance(self.human_agreement, Unset):
            human_agreement = UNSET
        elif isinstance(self.human_agreement, HumanAgreementSection):
            human_agreement = self.human_agreement.to_dict()
        else:
            human_agreement = self.human_agreement

        human_baseline: dict[str, Any] | None | Unset
        if isinstance(self.human_baseline, Unset):
            human_baseline = UNSET
        elif isinstance(self.human_baseline, HumanBaselineSection):
            human_baseline = self.human_baseline.to_dict()
        else:
            human_baseline = self.human_baseline

        provider_models: list[str] | Unset = UNSET
        if not isinstance(self.provider_models, Unset):
            provider_models = self.provider_models

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
        if canaries is not UNSET:
            field_dict["canaries"] = canaries
        if confidence is not UNSET:
            field_dict["confidence"] = confidence
        if human_agreement is not UNSET:
            field_dict["human_agreement"] = human_agreement
        if human_baseline is not UNSET:
            field_dict["human_baseline"] = human_baseline
        if provider_models is not UNSET:
            field_dict["provider_models"] = provider_models

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.call_counts import CallCounts  # noqa: PLC0415
        from ..models.canary_drift_read import CanaryDriftRead  # noqa: PLC0415
        from ..models.confidence_section import ConfidenceSection  # noqa: PLC0415
        from ..models.consistency_section import ConsistencySection  # noqa: PLC0415
        from ..models.human_agreement_section import HumanAgreementSection  # noqa: PLC0415
        from ..models.human_baseline_section import HumanBaselineSection  # noqa: PLC0415
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

        _canaries = d.pop("canaries", UNSET)
        canaries: list[CanaryDriftRead] | Unset = UNSET
        if _canaries is not UNSET:
            canaries = []
            for canaries_item_data in _canaries:
                canaries_item = CanaryDriftRead.from_dict(canaries_item_data)

                canaries.append(canaries_item)

        def _parse_confidence(data: object) -> ConfidenceSection | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                confidence_type_0 = ConfidenceSection.from_dict(data)

                return confidence_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ConfidenceSection | None | Unset, data)

        confidence = _parse_confidence(d.pop("confidence", UNSET))

        def _parse_human_agreement(data: object) -> HumanAgreementSection | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                human_agreement_type_0 = HumanAgreementSection.from_dict(data)

                return human_agreement_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HumanAgreementSection | None | Unset, data)

        human_agreement = _parse_human_agreement(d.pop("human_agreement", UNSET))

        def _parse_human_baseline(data: object) -> HumanBaselineSection | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                human_baseline_type_0 = HumanBaselineSection.from_dict(data)

                return human_baseline_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HumanBaselineSection | None | Unset, data)

        human_baseline = _parse_human_baseline(d.pop("human_baseline", UNSET))

        provider_models = cast(list[str], d.pop("provider_models", UNSET))

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
            canaries=canaries,
            confidence=confidence,
            human_agreement=human_agreement,
            human_baseline=human_baseline,
            provider_models=provider_models,
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
