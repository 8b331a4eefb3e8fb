from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.report_filters_read_bucket import ReportFiltersReadBucket
from ..models.report_filters_read_origin import ReportFiltersReadOrigin
from ..types import UNSET, Unset

T = TypeVar("T", bound="ReportFiltersRead")


@_attrs_define
class ReportFiltersRead:
    """The filters the report was computed with, defaults filled in.

    Attributes:
        bucket (ReportFiltersReadBucket):
        judge (None | str):
        judge_version (int | None):
        protocol (None | str):
        since (datetime.datetime):
        tags (list[str]):
        until (datetime.datetime | None):
        origin (ReportFiltersReadOrigin | Unset): whose comparisons counted: `traffic`, `canary` or `all` Default:
            ReportFiltersReadOrigin.TRAFFIC.
    """

    bucket: ReportFiltersReadBucket
    judge: None | str
    judge_version: int | None
    protocol: None | str
    since: datetime.datetime
    tags: list[str]
    until: datetime.datetime | None
    origin: ReportFiltersReadOrigin | Unset = ReportFiltersReadOrigin.TRAFFIC
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bucket = self.bucket.value

        judge: None | str
        judge = self.judge

        judge_version: int | None
        judge_version = self.judge_version

        protocol: None | str
        protocol = self.protocol

        since = self.since.isoformat()

        tags = self.tags

        until: None | str
        if isinstance(self.until, datetime.datetime):
            until = self.until.isoformat()
        else:
            until = self.until

        origin: str | Unset = UNSET
        if not isinstance(self.origin, Unset):
            origin = self.origin.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bucket": bucket,
                "judge": judge,
                "judge_version": judge_version,
                "protocol": protocol,
                "since": since,
                "tags": tags,
                "until": until,
            }
        )
        if origin is not UNSET:
            field_dict["origin"] = origin

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        bucket = ReportFiltersReadBucket(d.pop("bucket"))

        def _parse_judge(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        judge = _parse_judge(d.pop("judge"))

        def _parse_judge_version(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        judge_version = _parse_judge_version(d.pop("judge_version"))

        def _parse_protocol(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        protocol = _parse_protocol(d.pop("protocol"))

        since = datetime.datetime.fromisoformat(d.pop("since"))

        tags = cast(list[str], d.pop("tags"))

        def _parse_until(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                until_type_0 = datetime.datetime.fromisoformat(data)

                return until_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        until = _parse_until(d.pop("until"))

        _origin = d.pop("origin", UNSET)
        origin: ReportFiltersReadOrigin | Unset
        if isinstance(_origin, Unset):
            origin = UNSET
        else:
            origin = ReportFiltersReadOrigin(_origin)

        report_filters_read = cls(
            bucket=bucket,
            judge=judge,
            judge_version=judge_version,
            protocol=protocol,
            since=since,
            tags=tags,
            until=until,
            origin=origin,
        )

        report_filters_read.additional_properties = d
        return report_filters_read

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
