from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.gold_read_winner_type_0 import GoldReadWinnerType0

if TYPE_CHECKING:
    from ..models.gold_read_votes import GoldReadVotes


T = TypeVar("T", bound="GoldRead")


@_attrs_define
class GoldRead:
    """The comparison's gold label after this one: the majority of its labelers' latest labels.

    Attributes:
        disputed (bool):
        labelers (int):
        votes (GoldReadVotes):
        winner (GoldReadWinnerType0 | None): null when the labels are split evenly
    """

    disputed: bool
    labelers: int
    votes: GoldReadVotes
    winner: GoldReadWinnerType0 | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        disputed = self.disputed

        labelers = self.labelers

        votes = self.votes.to_dict()

        winner: None | str
        if isinstance(self.winner, GoldReadWinnerType0):
            winner = self.winner.value
        else:
            winner = self.winner

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "disputed": disputed,
                "labelers": labelers,
                "votes": votes,
                "winner": winner,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.gold_read_votes import GoldReadVotes  # noqa: PLC0415

        d = dict(src_dict)
        disputed = d.pop("disputed")

        labelers = d.pop("labelers")

        votes = GoldReadVotes.from_dict(d.pop("votes"))

        def _parse_winner(data: object) -> GoldReadWinnerType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                winner_type_0 = GoldReadWinnerType0(data)

                return winner_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GoldReadWinnerType0 | None, data)

        winner = _parse_winner(d.pop("winner"))

        gold_read = cls(
            disputed=disputed,
            labelers=labelers,
            votes=votes,
            winner=winner,
        )

        gold_read.additional_properties = d
        return gold_read

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
