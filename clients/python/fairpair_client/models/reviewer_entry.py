from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.offset_read import OffsetRead
    from ..models.score_call_read import ScoreCallRead


T = TypeVar("T", bound="ReviewerEntry")


@_attrs_define
class ReviewerEntry:
    """One reviewer of the session: what it scored, its call, and its calibration.

    Attributes:
        calibration (None | OffsetRead): null until the session completes
        call (None | ScoreCallRead): null while the session runs
        responses (list[int]): the responses it was asked to score
        reviewer (str):
        version (int):
    """

    calibration: None | OffsetRead
    call: None | ScoreCallRead
    responses: list[int]
    reviewer: str
    version: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.offset_read import OffsetRead  # noqa: PLC0415
        from ..models.score_call_read import ScoreCallRead  # noqa: PLC0415

        calibration: dict[str, Any] | None
        if isinstance(self.calibration, OffsetRead):
            calibration = self.calibration.to_dict()
        else:
            calibration = self.calibration

        call: dict[str, Any] | None
        if isinstance(self.call, ScoreCallRead):
            call = self.call.to_dict()
        else:
            call = self.call

        responses = self.responses

        reviewer = self.reviewer

        version = self.version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "calibration": calibration,
                "call": call,
                "responses": responses,
                "reviewer": reviewer,
                "version": version,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.offset_read import OffsetRead  # noqa: PLC0415
        from ..models.score_call_read import ScoreCallRead  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_calibration(data: object) -> None | OffsetRead:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                calibration_type_0 = OffsetRead.from_dict(data)

                return calibration_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | OffsetRead, data)

        calibration = _parse_calibration(d.pop("calibration"))

        def _parse_call(data: object) -> None | ScoreCallRead:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                call_type_0 = ScoreCallRead.from_dict(data)

                return call_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ScoreCallRead, data)

        call = _parse_call(d.pop("call"))

        responses = cast(list[int], d.pop("responses"))

        reviewer = d.pop("reviewer")

        version = d.pop("version")

        reviewer_entry = cls(
            calibration=calibration,
            call=call,
            responses=responses,
            reviewer=reviewer,
            version=version,
        )

        reviewer_entry.additional_properties = d
        return reviewer_entry

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
