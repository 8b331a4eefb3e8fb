from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.label_in_winner import LabelInWinner
from ..types import UNSET, Unset

T = TypeVar("T", bound="LabelIn")


@_attrs_define
class LabelIn:
    """A human's verdict on a stored comparison.

    Attributes:
        labeler (str): who labels; a new label by the same labeler replaces the old one
        winner (LabelInWinner):
        from_queue (bool | Unset): the comparison came from GET /v1/labeling-queue (a random draw) Default: False.
    """

    labeler: str
    winner: LabelInWinner
    from_queue: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        labeler = self.labeler

        winner = self.winner.value

        from_queue = self.from_queue

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "labeler": labeler,
                "winner": winner,
            }
        )
        if from_queue is not UNSET:
            field_dict["from_queue"] = from_queue

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        labeler = d.pop("labeler")

        winner = LabelInWinner(d.pop("winner"))

        from_queue = d.pop("from_queue", UNSET)

        label_in = cls(
            labeler=labeler,
            winner=winner,
            from_queue=from_queue,
        )

        return label_in
