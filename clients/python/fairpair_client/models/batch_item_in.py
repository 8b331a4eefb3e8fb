from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.compare_request import CompareRequest
    from ..models.score_request import ScoreRequest


T = TypeVar("T", bound="BatchItemIn")


@_attrs_define
class BatchItemIn:
    """One item: a compare request or a score request, with the caller's optional id.

    Attributes:
        compare (CompareRequest | None | Unset):
        item_id (None | str | Unset): yours; unique within the batch
        score (None | ScoreRequest | Unset):
    """

    compare: CompareRequest | None | Unset = UNSET
    item_id: None | str | Unset = UNSET
    score: None | ScoreRequest | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.compare_request import CompareRequest  # noqa: PLC0415
        from ..models.score_request import ScoreRequest  # noqa: PLC0415

        compare: dict[str, Any] | None | Unset
        if isinstance(self.compare, Unset):
            compare = UNSET
        elif isinstance(self.compare, CompareRequest):
            compare = self.compare.to_dict()
        else:
            compare = self.compare

        item_id: None | str | Unset
        if isinstance(self.item_id, Unset):
            item_id = UNSET
        else:
            item_id = self.item_id

        score: dict[str, Any] | None | Unset
        if isinstance(self.score, Unset):
            score = UNSET
        elif isinstance(self.score, ScoreRequest):
            score = self.score.to_dict()
        else:
            score = self.score

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if compare is not UNSET:
            field_dict["compare"] = compare
        if item_id is not UNSET:
            field_dict["item_id"] = item_id
        if score is not UNSET:
            field_dict["score"] = score

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.compare_request import CompareRequest  # noqa: PLC0415
        from ..models.score_request import ScoreRequest  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_compare(data: object) -> CompareRequest | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                compare_type_0 = CompareRequest.from_dict(data)

                return compare_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CompareRequest | None | Unset, data)

        compare = _parse_compare(d.pop("compare", UNSET))

        def _parse_item_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        item_id = _parse_item_id(d.pop("item_id", UNSET))

        def _parse_score(data: object) -> None | ScoreRequest | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                score_type_0 = ScoreRequest.from_dict(data)

                return score_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ScoreRequest | Unset, data)

        score = _parse_score(d.pop("score", UNSET))

        batch_item_in = cls(
            compare=compare,
            item_id=item_id,
            score=score,
        )

        return batch_item_in
