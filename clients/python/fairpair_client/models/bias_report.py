from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.judge_report import JudgeReport
    from ..models.length_score_section import LengthScoreSection
    from ..models.panel_label_sections import PanelLabelSections
    from ..models.position_score_section import PositionScoreSection
    from ..models.report_filters_read import ReportFiltersRead
    from ..models.reviewer_read import ReviewerRead
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
        length_score (LengthScoreSection | None | Unset):
        panel (None | PanelLabelSections | Unset):
        position_score (None | PositionScoreSection | Unset):
        reviewers (list[ReviewerRead] | Unset):
        schema_version (Literal[1] | Unset):  Default: 1.
    """

    filters: ReportFiltersRead
    generated_at: datetime.datetime
    judges: list[JudgeReport]
    series: list[SeriesPoint]
    length_score: LengthScoreSection | None | Unset = UNSET
    panel: None | PanelLabelSections | Unset = UNSET
    position_score: None | PositionScoreSection | Unset = UNSET
    reviewers: list[ReviewerRead] | Unset = UNSET
    schema_version: Literal[1] | Unset = 1
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.length_score_section import LengthScoreSection  # noqa: PLC0415
        from ..models.panel_label_sections import PanelLabelSections  # noqa: PLC0415
        from ..models.position_score_section import PositionScoreSection  # noqa: PLC0415

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

        length_score: dict[str, Any] | None | Unset
        if isinstance(self.length_score, Unset):
            length_score = UNSET
        elif isinstance(self.length_score, LengthScoreSection):
            length_score = self.length_score.to_dict()
        else:
            length_score = self.length_score

        panel: dict[str, Any] | None | Unset
        if isinstance(self.panel, Unset):
            panel = UNSET
        elif isinstance(self.panel, PanelLabelSections):
            panel = self.panel.to_dict()
        else:
            panel = self.panel

        position_score: dict[str, Any] | None | Unset
        if isinstance(self.position_score, Unset):
            position_score = UNSET
        elif isinstance(self.position_score, PositionScoreSection):
            position_score = self.position_score.to_dict()
        else:
            position_score = self.position_score

        reviewers: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.reviewers, Unset):
            reviewers = []
            for reviewers_item_data in self.reviewers:
                reviewers_item = reviewers_item_data.to_dict()
                reviewers.append(reviewers_item)

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
        if length_score is not UNSET:
            field_dict["length_score"] = length_score
        if panel is not UNSET:
            field_dict["panel"] = panel
        if position_score is not UNSET:
            field_dict["position_score"] = position_score
        if reviewers is not UNSET:
            field_dict["reviewers"] = reviewers
        if schema_version is not UNSET:
            field_dict["schema_version"] = schema_version

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.judge_report import JudgeReport  # noqa: PLC0415
        from ..models.length_score_section import LengthScoreSection  # noqa: PLC0415
        from ..models.panel_label_sections import PanelLabelSections  # noqa: PLC0415
        from ..models.position_score_section import PositionScoreSection  # noqa: PLC0415
        from ..models.report_filters_read import ReportFiltersRead  # noqa: PLC0415
        from ..models.reviewer_read import ReviewerRead  # noqa: PLC0415
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

        def _parse_length_score(data: object) -> LengthScoreSection | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                length_score_type_0 = LengthScoreSection.from_dict(data)

                return length_score_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LengthScoreSection | None | Unset, data)

        length_score = _parse_length_score(d.pop("length_score", UNSET))

        def _parse_panel(data: object) -> None | PanelLabelSections | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                panel_type_0 = PanelLabelSections.from_dict(data)

                return panel_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PanelLabelSections | Unset, data)

        panel = _parse_panel(d.pop("panel", UNSET))

        def _parse_position_score(data: object) -> None | PositionScoreSection | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                position_score_type_0 = PositionScoreSection.from_dict(data)

                return position_score_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PositionScoreSection | Unset, data)

        position_score = _parse_position_score(d.pop("position_score", UNSET))

        _reviewers = d.pop("reviewers", UNSET)
        reviewers: list[ReviewerRead] | Unset = UNSET
        if _reviewers is not UNSET:
            reviewers = []
            for reviewers_item_data in _reviewers:
                reviewers_item = ReviewerRead.from_dict(reviewers_item_data)

                reviewers.append(reviewers_item)

        schema_version = cast(Literal[1] | Unset, d.pop("schema_version", UNSET))
        if schema_version != 1 and not isinstance(schema_version, Unset):
            raise ValueError(f"schema_version must match const 1, got '{schema_version}'")

        bias_report = cls(
            filters=filters,
            generated_at=generated_at,
            judges=judges,
            series=series,
            length_score=length_score,
            panel=panel,
            position_score=position_score,
            reviewers=reviewers,
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
