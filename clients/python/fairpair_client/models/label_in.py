from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.label_in_shown_first_type_0 import LabelInShownFirstType0
from ..models.label_in_winner import LabelInWinner
from ..types import UNSET, Unset

T = TypeVar("T", bound="LabelIn")


@_attrs_define
class LabelIn:
    """A human's verdict on a stored comparison.

    Attributes:
        winner (LabelInWinner):
        from_queue (bool | Unset): the comparison came from GET /v1/labeling-queue (a random draw): only for a
            comparison the queue offered to this key in the last 7 days Default: False.
        labeler (None | str | Unset): who labels; a new label by the same labeler replaces the old one. A key labels as
            itself (its id, the default); naming another labeler (a team's annotators behind one tool) takes the `admin`
            scope. With auth off, any name.
        shown_first (LabelInShownFirstType0 | None | Unset): the response the labeler saw first, when the client knows:
            the humans' own first-slot rate counts only labels whose display order is known
    """

    winner: LabelInWinner
    from_queue: bool | Unset = False
    labeler: None | str | Unset = UNSET
    shown_first: LabelInShownFirstType0 | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        winner = self.winner.value

        from_queue = self.from_queue

        labeler: None | str | Unset
        if isinstance(self.labeler, Unset):
            labeler = UNSET
        else:
            labeler = self.labeler

        shown_first: None | str | Unset
        if isinstance(self.shown_first, Unset):
            shown_first = UNSET
        elif isinstance(self.shown_first, LabelInShownFirstType0):
            shown_first = self.shown_first.value
        else:
            shown_first = self.shown_first

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "winner": winner,
            }
        )
        if from_queue is not UNSET:
            field_dict["from_queue"] = from_queue
        if labeler is not UNSET:
            field_dict["labeler"] = labeler
        if shown_first is not UNSET:
            field_dict["shown_first"] = shown_first

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        winner = LabelInWinner(d.pop("winner"))

        from_queue = d.pop("from_queue", UNSET)

        def _parse_labeler(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        labeler = _parse_labeler(d.pop("labeler", UNSET))

        def _parse_shown_first(data: object) -> LabelInShownFirstType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                shown_first_type_0 = LabelInShownFirstType0(data)

                return shown_first_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LabelInShownFirstType0 | None | Unset, data)

        shown_first = _parse_shown_first(d.pop("shown_first", UNSET))

        label_in = cls(
            winner=winner,
            from_queue=from_queue,
            labeler=labeler,
            shown_first=shown_first,
        )

        return label_in
