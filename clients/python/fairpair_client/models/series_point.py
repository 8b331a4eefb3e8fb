from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.series_point_consistency_tier import SeriesPointConsistencyTier
from ..models.series_point_granularity import SeriesPointGranularity
from ..models.series_point_tier import SeriesPointTier

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
