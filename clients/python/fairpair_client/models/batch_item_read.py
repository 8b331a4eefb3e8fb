from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.batch_item_read_kind import BatchItemReadKind
from ..models.batch_item_read_status import BatchItemReadStatus

if TYPE_CHECKING:
    from ..models.comparison_read import ComparisonRead
    from ..models.item_error import ItemError
    from ..models.score_session_read import ScoreSessionRead


T = TypeVar("T", bound="BatchItemRead")


@_attrs_define
class BatchItemRead:
    """One item's state and, once it ran, its comparison or score session.

    Attributes:
        attempts (int):
        comparison (ComparisonRead | None):
        comparison_id (None | str):
        error (ItemError | None):
        finished_at (datetime.datetime | None):
        item_id (None | str):
        kind (BatchItemReadKind):
        position (int):
        score_session (None | ScoreSessionRead):
        score_session_id (None | str):
        started_at (datetime.datetime | None):
        status (BatchItemReadStatus):
    """

    attempts: int
    comparison: ComparisonRead | None
    comparison_id: None | str
    error: ItemError | None
    finished_at: datetime.datetime | None
    item_id: None | str
    kind: BatchItemReadKind
    position: int
    score_session: None | ScoreSessionRead
    score_session_id: None | str
    started_at: datetime.datetime | None
    status: BatchItemReadStatus
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.comparison_read import ComparisonRead  # noqa: PLC0415
        from ..models.item_error import ItemError  # noqa: PLC0415
        from ..models.score_session_read import ScoreSessionRead  # noqa: PLC0415

        attempts = self.attempts

        comparison: dict[str, Any] | None
        if isinstance(self.comparison, ComparisonRead):
            comparison = self.comparison.to_dict()
        else:
            comparison = self.comparison

        comparison_id: None | str
        comparison_id = self.comparison_id

        error: dict[str, Any] | None
        if isinstance(self.error, ItemError):
            error = self.error.to_dict()
        else:
            error = self.error

        finished_at: None | str
        if isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        item_id: None | str
        item_id = self.item_id

        kind = self.kind.value

        position = self.position

        score_session: dict[str, Any] | None
        if isinstance(self.score_session, ScoreSessionRead):
            score_session = self.score_session.to_dict()
        else:
            score_session = self.score_session

        score_session_id: None | str
        score_session_id = self.score_session_id

        started_at: None | str
        if isinstance(self.started_at, datetime.datetime):
            started_at = self.started_at.isoformat()
        else:
            started_at = self.started_at

        status = self.status.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempts": attempts,
                "comparison": comparison,
                "comparison_id": comparison_id,
                "error": error,
                "finished_at": finished_at,
                "item_id": item_id,
                "kind": kind,
                "position": position,
                "score_session": score_session,
                "score_session_id": score_session_id,
                "started_at": started_at,
                "status": status,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.comparison_read import ComparisonRead  # noqa: PLC0415
        from ..models.item_error import ItemError  # noqa: PLC0415
        from ..models.score_session_read import ScoreSessionRead  # noqa: PLC0415

        d = dict(src_dict)
        attempts = d.pop("attempts")

        def _parse_comparison(data: object) -> ComparisonRead | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                comparison_type_0 = ComparisonRead.from_dict(data)

                return comparison_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ComparisonRead | None, data)

        comparison = _parse_comparison(d.pop("comparison"))

        def _parse_comparison_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        comparison_id = _parse_comparison_id(d.pop("comparison_id"))

        def _parse_error(data: object) -> ItemError | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = ItemError.from_dict(data)

                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ItemError | None, data)

        error = _parse_error(d.pop("error"))

        def _parse_finished_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = datetime.datetime.fromisoformat(data)

                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        finished_at = _parse_finished_at(d.pop("finished_at"))

        def _parse_item_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        item_id = _parse_item_id(d.pop("item_id"))

        kind = BatchItemReadKind(d.pop("kind"))

        position = d.pop("position")

        def _parse_score_session(data: object) -> None | ScoreSessionRead:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                score_session_type_0 = ScoreSessionRead.from_dict(data)

                return score_session_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ScoreSessionRead, data)

        score_session = _parse_score_session(d.pop("score_session"))

        def _parse_score_session_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        score_session_id = _parse_score_session_id(d.pop("score_session_id"))

        def _parse_started_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                started_at_type_0 = datetime.datetime.fromisoformat(data)

                return started_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        started_at = _parse_started_at(d.pop("started_at"))

        status = BatchItemReadStatus(d.pop("status"))

        batch_item_read = cls(
            attempts=attempts,
            comparison=comparison,
            comparison_id=comparison_id,
            error=error,
            finished_at=finished_at,
            item_id=item_id,
            kind=kind,
            position=position,
            score_session=score_session,
            score_session_id=score_session_id,
            started_at=started_at,
            status=status,
        )

        batch_item_read.additional_properties = d
        return batch_item_read

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
