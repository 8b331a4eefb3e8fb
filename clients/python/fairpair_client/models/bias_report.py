from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.judge_report import JudgeReport
    from ..models.report_filters_read import ReportFiltersRead
    from ..models.series_point import SeriesPoint


T = TypeVar("T", bound="BiasReport")


@_attrs_define
class BiasReport:
    """`GET /v1/bias-report`.

    Attributes:
        filters (ReportFiltersRead): The filters the report was computed with, defaults filled in.
        generated_at (datetime.datetime):
        judges (list[JudgeReport]):
        series (list[SeriesPoint]):
        schema_version (Literal[1] | Unset):  Default: 1.
    """

    filters: ReportFiltersRead
    generated_at: datetime.datetime
    judges: list[JudgeReport]
    series: list[SeriesPoint]
    schema_version: Literal[1] | Unset = 1
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        filters = self.filters.to_dict()

        generated_at = self.generated_at.isoformat()

        judges = []
        for judges_item_data in self.judges:
            judges_item = judges_item_data.to_dict()
            judges.append(judges_item)

        series = []
        for series_item_data in self.series:
            series_item = series_item_data.to_dict()
            series.append(series_item)

        schema_version = self.schema_version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "filters": filters,
                "generated_at": generated_at,
                "judges": judges,
                "series": series,
            }
        )
        if schema_version is not UNSET:
            field_dict["schema_version"] = schema_version

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.judge_report import JudgeReport  # noqa: PLC0415
        from ..models.report_filters_read import ReportFiltersRead  # noqa: PLC0415
        from ..models.series_point import SeriesPoint  # noqa: PLC0415

        d = dict(src_dict)
        filters = ReportFiltersRead.from_dict(d.pop("filters"))

        generated_at = datetime.datetime.fromisoformat(d.pop("generated_at"))

        judges = []
        _judges = d.pop("judges")
        for judges_item_data in _judges:
            judges_item = JudgeReport.from_dict(judges_item_data)

            judges.append(judges_item)

        series = []
        _series = d.pop("series")
        for series_item_data in _series:
            series_item = SeriesPoint.from_dict(series_item_data)

            series.append(series_item)

        schema_version = cast(Literal[1] | Unset, d.pop("schema_version", UNSET))
        if schema_version != 1 and not isinstance(schema_version, Unset):
            raise ValueError(f"schema_version must match const 1, got '{schema_version}'")

        bias_report = cls(
            filters=filters,
            generated_at=generated_at,
            judges=judges,
            series=series,
            schema_version=schema_version,
        )

        bias_report.additional_properties = d
        return bias_report

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
