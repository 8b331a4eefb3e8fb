from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.score_session_read_status import ScoreSessionReadStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.calibration_read import CalibrationRead
    from ..models.excluded_reviewer_read import ExcludedReviewerRead
    from ..models.response_scores import ResponseScores
    from ..models.reviewer_entry import ReviewerEntry
    from ..models.rubric_read import RubricRead
    from ..models.score_session_read_tags import ScoreSessionReadTags


T = TypeVar("T", bound="ScoreSessionRead")


@_attrs_define
class ScoreSessionRead:
    """A score session (the answer of `POST /v1/score`).

    Attributes:
        calibration (CalibrationRead | None):
        completed_at (datetime.datetime | None):
        conflicted (list[str]): reviewers conflicted on some response
        created_at (datetime.datetime):
        excluded (list[ExcludedReviewerRead]):
        id (str):
        length_target (int | None): characters; null unless normalization asked
        responses (list[ResponseScores]):
        reviewers (list[ReviewerEntry]):
        rubric (RubricRead): The rubric used, with its id (a hash of range, levels and anchors).
        self_preference_risk (bool):
        simulated (bool):
        status (ScoreSessionReadStatus):
        tags (ScoreSessionReadTags):
        error_kind (None | str | Unset):
        shared_reviewers (list[str] | Unset): reviewers with a counted score on every response: each `shared_raw_mean`
            is over exactly these
    """

    calibration: CalibrationRead | None
    completed_at: datetime.datetime | None
    conflicted: list[str]
    created_at: datetime.datetime
    excluded: list[ExcludedReviewerRead]
    id: str
    length_target: int | None
    responses: list[ResponseScores]
    reviewers: list[ReviewerEntry]
    rubric: RubricRead
    self_preference_risk: bool
    simulated: bool
    status: ScoreSessionReadStatus
    tags: ScoreSessionReadTags
    error_kind: None | str | Unset = UNSET
    shared_reviewers: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.calibration_read import CalibrationRead  # noqa: PLC0415

        calibration: dict[str, Any] | None
        if isinstance(self.calibration, CalibrationRead):
            calibration = self.calibration.to_dict()
        else:
            calibration = self.calibration

        completed_at: None | str
        if isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        conflicted = self.conflicted

        created_at = self.created_at.isoformat()

        excluded = []
        for excluded_item_data in self.excluded:
            excluded_item = excluded_item_data.to_dict()
            excluded.append(excluded_item)

        id = self.id

        length_target: int | None
        length_target = self.length_target

        responses = []
        for responses_item_data in self.responses:
            responses_item = responses_item_data.to_dict()
            responses.append(responses_item)

        reviewers = []
        for reviewers_item_data in self.reviewers:
            reviewers_item = reviewers_item_data.to_dict()
            reviewers.append(reviewers_item)

        rubric = self.rubric.to_dict()

        self_preference_risk = self.self_preference_risk

        simulated = self.simulated

        status = self.status.value

        tags = self.tags.to_dict()

        error_kind: None | str | Unset
        if isinstance(self.error_kind, Unset):
            error_kind = UNSET
        else:
            error_kind = self.error_kind

        shared_reviewers: list[str] | Unset = UNSET
        if not isinstance(self.shared_reviewers, Unset):
            shared_reviewers = self.shared_reviewers

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "calibration": calibration,
                "completed_at": completed_at,
                "conflicted": conflicted,
                "created_at": created_at,
                "excluded": excluded,
                "id": id,
                "length_target": length_target,
                "responses": responses,
                "reviewers": reviewers,
                "rubric": rubric,
                "self_preference_risk": self_preference_risk,
                "simulated": simulated,
                "status": status,
                "tags": tags,
            }
        )
        if error_kind is not UNSET:
            field_dict["error_kind"] = error_kind
        if shared_reviewers is not UNSET:
            field_dict["shared_reviewers"] = shared_reviewers

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.calibration_read import CalibrationRead  # noqa: PLC0415
        from ..models.excluded_reviewer_read import ExcludedReviewerRead  # noqa: PLC0415
        from ..models.response_scores import ResponseScores  # noqa: PLC0415
        from ..models.reviewer_entry import ReviewerEntry  # noqa: PLC0415
        from ..models.rubric_read import RubricRead  # noqa: PLC0415
        from ..models.score_session_read_tags import ScoreSessionReadTags  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_calibration(data: object) -> CalibrationRead | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                calibration_type_0 = CalibrationRead.from_dict(data)

                return calibration_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CalibrationRead | None, data)

        calibration = _parse_calibration(d.pop("calibration"))

        def _parse_completed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                completed_at_type_0 = datetime.datetime.fromisoformat(data)

                return completed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        completed_at = _parse_completed_at(d.pop("completed_at"))

        conflicted = cast(list[str], d.pop("conflicted"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        excluded = []
        _excluded = d.pop("excluded")
        for excluded_item_data in _excluded:
            excluded_item = ExcludedReviewerRead.from_dict(excluded_item_data)

            excluded.append(excluded_item)

        id = d.pop("id")

        def _parse_length_target(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        length_target = _parse_length_target(d.pop("length_target"))

        responses = []
        _responses = d.pop("responses")
        for responses_item_data in _responses:
            responses_item = ResponseScores.from_dict(responses_item_data)

            responses.append(responses_item)

        reviewers = []
        _reviewers = d.pop("reviewers")
        for reviewers_item_data in _reviewers:
            reviewers_item = ReviewerEntry.from_dict(reviewers_item_data)

            reviewers.append(reviewers_item)

        rubric = RubricRead.from_dict(d.pop("rubric"))

        self_preference_risk = d.pop("self_preference_risk")

        simulated = d.pop("simulated")

        status = ScoreSessionReadStatus(d.pop("status"))

        tags = ScoreSessionReadTags.from_dict(d.pop("tags"))

        def _parse_error_kind(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error_kind = _parse_error_kind(d.pop("error_kind", UNSET))

        shared_reviewers = cast(list[str], d.pop("shared_reviewers", UNSET))

        score_session_read = cls(
            calibration=calibration,
            completed_at=completed_at,
            conflicted=conflicted,
            created_at=created_at,
            excluded=excluded,
            id=id,
            length_target=length_target,
            responses=responses,
            reviewers=reviewers,
            rubric=rubric,
            self_preference_risk=self_preference_risk,
            simulated=simulated,
            status=status,
            tags=tags,
            error_kind=error_kind,
            shared_reviewers=shared_reviewers,
        )

        score_session_read.additional_properties = d
        return score_session_read

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
