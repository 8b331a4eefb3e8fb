from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.leave_one_judge_out import LeaveOneJudgeOut
    from ..models.pair_fragility import PairFragility


T = TypeVar("T", bound="Fragility")


@_attrs_define
class Fragility:
    """How fragile the ranking is (STATISTICS.md, "Leaderboard: fragility").

    Attributes:
        adjacent (list[PairFragility]): the top two, and each adjacent pair whose intervals overlap among the top five
        leave_one_judge_out (LeaveOneJudgeOut): Leave-one-judge-out rank agreement (STATISTICS.md, "Leaderboard:
            fragility").
        max_flips (int):
        pairs (int): rated model pairs
        separability (float | None): separable_pairs / pairs (Arena-Hard's separability); null with one model
        separable_pairs (int): rated model pairs whose 95% intervals do not overlap
    """

    adjacent: list[PairFragility]
    leave_one_judge_out: LeaveOneJudgeOut
    max_flips: int
    pairs: int
    separability: float | None
    separable_pairs: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        adjacent = []
        for adjacent_item_data in self.adjacent:
            adjacent_item = adjacent_item_data.to_dict()
            adjacent.append(adjacent_item)

        leave_one_judge_out = self.leave_one_judge_out.to_dict()

        max_flips = self.max_flips

        pairs = self.pairs

        separability: float | None
        separability = self.separability

        separable_pairs = self.separable_pairs

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "adjacent": adjacent,
                "leave_one_judge_out": leave_one_judge_out,
                "max_flips": max_flips,
                "pairs": pairs,
                "separability": separability,
                "separable_pairs": separable_pairs,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.leave_one_judge_out import LeaveOneJudgeOut  # noqa: PLC0415
        from ..models.pair_fragility import PairFragility  # noqa: PLC0415

        d = dict(src_dict)
        adjacent = []
        _adjacent = d.pop("adjacent")
        for adjacent_item_data in _adjacent:
            adjacent_item = PairFragility.from_dict(adjacent_item_data)

            adjacent.append(adjacent_item)

        leave_one_judge_out = LeaveOneJudgeOut.from_dict(d.pop("leave_one_judge_out"))

        max_flips = d.pop("max_flips")

        pairs = d.pop("pairs")

        def _parse_separability(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        separability = _parse_separability(d.pop("separability"))

        separable_pairs = d.pop("separable_pairs")

        fragility = cls(
            adjacent=adjacent,
            leave_one_judge_out=leave_one_judge_out,
            max_flips=max_flips,
            pairs=pairs,
            separability=separability,
            separable_pairs=separable_pairs,
        )

        fragility.additional_properties = d
        return fragility

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
