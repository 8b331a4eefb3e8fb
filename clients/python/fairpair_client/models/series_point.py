from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.series_point_consistency_tier import SeriesPointConsistencyTier
from ..models.series_point_granularity import SeriesPointGranularity
from ..models.series_point_human_agreement_tier import SeriesPointHumanAgreementTier
from ..models.series_point_tier import SeriesPointTier
from ..types import UNSET, Unset

T = TypeVar("T", bound="SeriesPoint")


@_attrs_define
class SeriesPoint:
    """One judge in one UTC bucket.

    Attributes:
        bucket (datetime.datetime):
        calls (int):
        consistency_tier (SeriesPointConsistencyTier):
        failure_rate (float | None):
        first_pick_rate (float | None):
        granularity (SeriesPointGranularity): hour buckets only where every hour of the day is at least preliminary;
            otherwise the day
        judge (str):
        n (int): decisive design calls
        pairs (int):
        position_consistency (float | None):
        tie_rate (float | None):
        tier (SeriesPointTier):
        version (int): the latest judge version seen in the bucket
        version_changed (bool): versions differ from the judge's previous bucket, or the bucket holds several
        versions (list[int]):
        call_accuracy (float | None | Unset): calls whose mapped winner equals the gold / gold_calls
        call_accuracy_ci95 (list[float] | None | Unset): Wilson over the calls, as if independent (a swap pair's two
            calls are not: a comparison-level interval would be wider)
        failure_rate_ci95 (list[float] | None | Unset):
        first_pick_rate_ci95 (list[float] | None | Unset):
        gold_calls (int | Unset): parsed design calls on them Default: 0.
        gold_comparisons (int | Unset): gold-labelled comparisons (the tier's unit) Default: 0.
        gold_verdicts (int | Unset): gold-labelled comparisons with a result Default: 0.
        human_agreement_tier (SeriesPointHumanAgreementTier | Unset): by gold_comparisons (labelled comparisons); the
            accuracies are null below preliminary Default: SeriesPointHumanAgreementTier.INSUFFICIENT.
        position_consistency_ci95 (list[float] | None | Unset):
        provider_model_changed (bool | Unset): provider models differ from the judge's previous bucket that reported
            one, or the bucket holds several Default: False.
        provider_models (list[str] | Unset): models the provider reported in the bucket
        tie_rate_ci95 (list[float] | None | Unset):
        verdict_accuracy (float | None | Unset): the judge's verdict equals the gold / gold_verdicts
        verdict_accuracy_ci95 (list[float] | None | Unset): Wilson
    """

    bucket: datetime.datetime
    calls: int
    consistency_tier: SeriesPointConsistencyTier
    failure_rate: float | None
    first_pick_rate: float | None
    granularity: SeriesPointGranularity
    judge: str
    n: int
    pairs: int
    position_consistency: float | None
    tie_rate: float | None
    tier: SeriesPointTier
    version: int
    version_changed: bool
    versions: list[int]
    call_accuracy: float | None | Unset = UNSET
    call_accuracy_ci95: list[float] | None | Unset = UNSET
    failure_rate_ci95: list[float] | None | Unset = UNSET
    first_pick_rate_ci95: list[float] | None | Unset = UNSET
    gold_calls: int | Unset = 0
    gold_comparisons: int | Unset = 0
    gold_verdicts: int | Unset = 0
    human_agreement_tier: SeriesPointHumanAgreementTier | Unset = SeriesPointHumanAgreementTier.INSUFFICIENT
    position_consistency_ci95: list[float] | None | Unset = UNSET
    provider_model_changed: bool | Unset = False
    provider_models: list[str] | Unset = UNSET
    tie_rate_ci95: list[float] | None | Unset = UNSET
    verdict_accuracy: float | None | Unset = UNSET
    verdict_accuracy_ci95: list[float] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bucket = self.bucket.isoformat()

        calls = self.calls

        consistency_tier = self.consistency_tier.value

        failure_rate: float | None
        failure_rate = self.failure_rate

        first_pick_rate: float | None
        first_pick_rate = self.first_pick_rate

        granularity = self.granularity.value

        judge = self.judge

        n = self.n

        pairs = self.pairs

        position_consistency: float | None
        position_consistency = self.position_consistency

        tie_rate: float | None
        tie_rate = self.tie_rate

        tier = self.tier.value

        version = self.version

        version_changed = self.version_changed

        versions = self.versions

        call_accuracy: float | None | Unset
        if isinstance(self.call_accuracy, Unset):
            call_accuracy = UNSET
        else:
            call_accuracy = self.call_accuracy

        call_accuracy_ci95: list[float] | None | Unset
        if isinstance(self.call_accuracy_ci95, Unset):
            call_accuracy_ci95 = UNSET
        elif isinstance(self.call_accuracy_ci95, list):
            call_accuracy_ci95 = []
            for call_accuracy_ci95_type_0_item_data in self.call_accuracy_ci95:
                call_accuracy_ci95_type_0_item: float
                call_accuracy_ci95_type_0_item = call_accuracy_ci95_type_0_item_data
                call_accuracy_ci95.append(call_accuracy_ci95_type_0_item)

        else:
            call_accuracy_ci95 = self.call_accuracy_ci95

        failure_rate_ci95: list[float] | None | Unset
        if isinstance(self.failure_rate_ci95, Unset):
            failure_rate_ci95 = UNSET
        elif isinstance(self.failure_rate_ci95, list):
            failure_rate_ci95 = []
            for failure_rate_ci95_type_0_item_data in self.failure_rate_ci95:
                failure_rate_ci95_type_0_item: float
                failure_rate_ci95_type_0_item = failure_rate_ci95_type_0_item_data
                failure_rate_ci95.append(failure_rate_ci95_type_0_item)

        else:
            failure_rate_ci95 = self.failure_rate_ci95

        first_pick_rate_ci95: list[float] | None | Unset
        if isinstance(self.first_pick_rate_ci95, Unset):
            first_pick_rate_ci95 = UNSET
        elif isinstance(self.first_pick_rate_ci95, list):
            first_pick_rate_ci95 = []
            for first_pick_rate_ci95_type_0_item_data in self.first_pick_rate_ci95:
                first_pick_rate_ci95_type_0_item: float
                first_pick_rate_ci95_type_0_item = first_pick_rate_ci95_type_0_item_data
                first_pick_rate_ci95.append(first_pick_rate_ci95_type_0_item)

        else:
            first_pick_rate_ci95 = self.first_pick_rate_ci95

        gold_calls = self.gold_calls

        gold_comparisons = self.gold_comparisons

        gold_verdicts = self.gold_verdicts

        human_agreement_tier: str | Unset = UNSET
        if not isinstance(self.human_agreement_tier, Unset):
            human_agreement_tier = self.human_agreement_tier.value

        position_consistency_ci95: list[float] | None | Unset
        if isinstance(self.position_consistency_ci95, Unset):
            position_consistency_ci95 = UNSET
        elif isinstance(self.position_consistency_ci95, list):
            position_consistency_ci95 = []
            for position_consistency_ci95_type_0_item_data in self.position_consistency_ci95:
                position_consistency_ci95_type_0_item: float
                position_consistency_ci95_type_0_item = position_consistency_ci95_type_0_item_data
                position_consistency_ci95.append(position_consistency_ci95_type_0_item)

        else:
            position_consistency_ci95 = self.position_consistency_ci95

        provider_model_changed = self.provider_model_changed

        provider_models: list[str] | Unset = UNSET
        if not isinstance(self.provider_models, Unset):
            provider_models = self.provider_models

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

        verdict_accuracy: float | None | Unset
        if isinstance(self.verdict_accuracy, Unset):
            verdict_accuracy = UNSET
        else:
            verdict_accuracy = self.verdict_accuracy

        verdict_accuracy_ci95: list[float] | None | Unset
        if isinstance(self.verdict_accuracy_ci95, Unset):
            verdict_accuracy_ci95 = UNSET
        elif isinstance(self.verdict_accuracy_ci95, list):
            verdict_accuracy_ci95 = []
            for verdict_accuracy_ci95_type_0_item_data in self.verdict_accuracy_ci95:
                verdict_accuracy_ci95_type_0_item: float
                verdict_accuracy_ci95_type_0_item = verdict_accuracy_ci95_type_0_item_data
                verdict_accuracy_ci95.append(verdict_accuracy_ci95_type_0_item)

        else:
            verdict_accuracy_ci95 = self.verdict_accuracy_ci95

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bucket": bucket,
                "calls": calls,
                "consistency_tier": consistency_tier,
                "failure_rate": failure_rate,
                "first_pick_rate": first_pick_rate,
                "granularity": granularity,
                "judge": judge,
                "n": n,
                "pairs": pairs,
                "position_consistency": position_consistency,
                "tie_rate": tie_rate,
                "tier": tier,
                "version": version,
                "version_changed": version_changed,
                "versions": versions,
            }
        )
        if call_accuracy is not UNSET:
            field_dict["call_accuracy"] = call_accuracy
        if call_accuracy_ci95 is not UNSET:
            field_dict["call_accuracy_ci95"] = call_accuracy_ci95
        if failure_rate_ci95 is not UNSET:
            field_dict["failure_rate_ci95"] = failure_rate_ci95
        if first_pick_rate_ci95 is not UNSET:
            field_dict["first_pick_rate_ci95"] = first_pick_rate_ci95
        if gold_calls is not UNSET:
            field_dict["gold_calls"] = gold_calls
        if gold_comparisons is not UNSET:
            field_dict["gold_comparisons"] = gold_comparisons
        if gold_verdicts is not UNSET:
            field_dict["gold_verdicts"] = gold_verdicts
        if human_agreement_tier is not UNSET:
            field_dict["human_agreement_tier"] = human_agreement_tier
        if position_consistency_ci95 is not UNSET:
            field_dict["position_consistency_ci95"] = position_consistency_ci95
        if provider_model_changed is not UNSET:
            field_dict["provider_model_changed"] = provider_model_changed
        if provider_models is not UNSET:
            field_dict["provider_models"] = provider_models
        if tie_rate_ci95 is not UNSET:
            field_dict["tie_rate_ci95"] = tie_rate_ci95
        if verdict_accuracy is not UNSET:
            field_dict["verdict_accuracy"] = verdict_accuracy
        if verdict_accuracy_ci95 is not UNSET:
            field_dict["verdict_accuracy_ci95"] = verdict_accuracy_ci95

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        bucket = datetime.datetime.fromisoformat(d.pop("bucket"))

        calls = d.pop("calls")

        consistency_tier = SeriesPointConsistencyTier(d.pop("consistency_tier"))

        def _parse_failure_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        failure_rate = _parse_failure_rate(d.pop("failure_rate"))

        def _parse_first_pick_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        first_pick_rate = _parse_first_pick_rate(d.pop("first_pick_rate"))

        granularity = SeriesPointGranularity(d.pop("granularity"))

        judge = d.pop("judge")

        n = d.pop("n")

        pairs = d.pop("pairs")

        def _parse_position_consistency(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        position_consistency = _parse_position_consistency(d.pop("position_consistency"))

        def _parse_tie_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        tie_rate = _parse_tie_rate(d.pop("tie_rate"))

        tier = SeriesPointTier(d.pop("tier"))

        version = d.pop("version")

        version_changed = d.pop("version_changed")

        versions = cast(list[int], d.pop("versions"))

        def _parse_call_accuracy(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        call_accuracy = _parse_call_accuracy(d.pop("call_accuracy", UNSET))

        def _parse_call_accuracy_ci95(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                call_accuracy_ci95_type_0 = []
                _call_accuracy_ci95_type_0 = data
                for call_accuracy_ci95_type_0_item_data in _call_accuracy_ci95_type_0:

                    def _parse_call_accuracy_ci95_type_0_item(data: object) -> float:
                        return cast(float, data)

                    call_accuracy_ci95_type_0_item = _parse_call_accuracy_ci95_type_0_item(
                        call_accuracy_ci95_type_0_item_data
                    )

                    call_accuracy_ci95_type_0.append(call_accuracy_ci95_type_0_item)

                return call_accuracy_ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None | Unset, data)

        call_accuracy_ci95 = _parse_call_accuracy_ci95(d.pop("call_accuracy_ci95", UNSET))

        def _parse_failure_rate_ci95(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                failure_rate_ci95_type_0 = []
                _failure_rate_ci95_type_0 = data
                for failure_rate_ci95_type_0_item_data in _failure_rate_ci95_type_0:

                    def _parse_failure_rate_ci95_type_0_item(data: object) -> float:
                        return cast(float, data)

                    failure_rate_ci95_type_0_item = _parse_failure_rate_ci95_type_0_item(
                        failure_rate_ci95_type_0_item_data
                    )

                    failure_rate_ci95_type_0.append(failure_rate_ci95_type_0_item)

                return failure_rate_ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None | Unset, data)

        failure_rate_ci95 = _parse_failure_rate_ci95(d.pop("failure_rate_ci95", UNSET))

        def _parse_first_pick_rate_ci95(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                first_pick_rate_ci95_type_0 = []
                _first_pick_rate_ci95_type_0 = data
                for first_pick_rate_ci95_type_0_item_data in _first_pick_rate_ci95_type_0:

                    def _parse_first_pick_rate_ci95_type_0_item(data: object) -> float:
                        return cast(float, data)

                    first_pick_rate_ci95_type_0_item = _parse_first_pick_rate_ci95_type_0_item(
                        first_pick_rate_ci95_type_0_item_data
                    )

                    first_pick_rate_ci95_type_0.append(first_pick_rate_ci95_type_0_item)

                return first_pick_rate_ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None | Unset, data)

        first_pick_rate_ci95 = _parse_first_pick_rate_ci95(d.pop("first_pick_rate_ci95", UNSET))

        gold_calls = d.pop("gold_calls", UNSET)

        gold_comparisons = d.pop("gold_comparisons", UNSET)

        gold_verdicts = d.pop("gold_verdicts", UNSET)

        _human_agreement_tier = d.pop("human_agreement_tier", UNSET)
        human_agreement_tier: SeriesPointHumanAgreementTier | Unset
        if isinstance(_human_agreement_tier, Unset):
            human_agreement_tier = UNSET
        else:
            human_agreement_tier = SeriesPointHumanAgreementTier(_human_agreement_tier)

        def _parse_position_consistency_ci95(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                position_consistency_ci95_type_0 = []
                _position_consistency_ci95_type_0 = data
                for position_consistency_ci95_type_0_item_data in _position_consistency_ci95_type_0:

                    def _parse_position_consistency_ci95_type_0_item(data: object) -> float:
                        return cast(float, data)

                    position_consistency_ci95_type_0_item = _parse_position_consistency_ci95_type_0_item(
                        position_consistency_ci95_type_0_item_data
                    )

                    position_consistency_ci95_type_0.append(position_consistency_ci95_type_0_item)

                return position_consistency_ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None | Unset, data)

        position_consistency_ci95 = _parse_position_consistency_ci95(d.pop("position_consistency_ci95", UNSET))

        provider_model_changed = d.pop("provider_model_changed", UNSET)

        provider_models = cast(list[str], d.pop("provider_models", UNSET))

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

        def _parse_verdict_accuracy(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        verdict_accuracy = _parse_verdict_accuracy(d.pop("verdict_accuracy", UNSET))

        def _parse_verdict_accuracy_ci95(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                verdict_accuracy_ci95_type_0 = []
                _verdict_accuracy_ci95_type_0 = data
                for verdict_accuracy_ci95_type_0_item_data in _verdict_accuracy_ci95_type_0:

                    def _parse_verdict_accuracy_ci95_type_0_item(data: object) -> float:
                        return cast(float, data)

                    verdict_accuracy_ci95_type_0_item = _parse_verdict_accuracy_ci95_type_0_item(
                        verdict_accuracy_ci95_type_0_item_data
                    )

                    verdict_accuracy_ci95_type_0.append(verdict_accuracy_ci95_type_0_item)

                return verdict_accuracy_ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None | Unset, data)

        verdict_accuracy_ci95 = _parse_verdict_accuracy_ci95(d.pop("verdict_accuracy_ci95", UNSET))

        series_point = cls(
            bucket=bucket,
            calls=calls,
            consistency_tier=consistency_tier,
            failure_rate=failure_rate,
            first_pick_rate=first_pick_rate,
            granularity=granularity,
            judge=judge,
            n=n,
            pairs=pairs,
            position_consistency=position_consistency,
            tie_rate=tie_rate,
            tier=tier,
            version=version,
            version_changed=version_changed,
            versions=versions,
            call_accuracy=call_accuracy,
            call_accuracy_ci95=call_accuracy_ci95,
            failure_rate_ci95=failure_rate_ci95,
            first_pick_rate_ci95=first_pick_rate_ci95,
            gold_calls=gold_calls,
            gold_comparisons=gold_comparisons,
            gold_verdicts=gold_verdicts,
            human_agreement_tier=human_agreement_tier,
            position_consistency_ci95=position_consistency_ci95,
            provider_model_changed=provider_model_changed,
            provider_models=provider_models,
            tie_rate_ci95=tie_rate_ci95,
            verdict_accuracy=verdict_accuracy,
            verdict_accuracy_ci95=verdict_accuracy_ci95,
        )

        series_point.additional_properties = d
        return series_point

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
