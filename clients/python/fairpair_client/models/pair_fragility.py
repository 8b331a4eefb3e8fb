from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PairFragility")


@_attrs_define
class PairFragility:
    """Two models next to each other on the board, and what it would take to swap them.

    Attributes:
        cis_overlap (bool): their rating intervals overlap
        flips (int | None): verdicts that, turned against the higher model (or for the lower), put the lower one above:
            found greedily, an upper bound on the fewest; null: more than `max_flips`
        higher (str):
        lower (str):
    """

    cis_overlap: bool
    flips: int | None
    higher: str
    lower: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cis_overlap = self.cis_overlap

        flips: int | None
        flips = self.flips

        higher = self.higher

        lower = self.lower

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cis_overlap": cis_overlap,
                "flips": flips,
                "higher": higher,
                "lower": lower,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cis_overlap = d.pop("cis_overlap")

        def _parse_flips(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        flips = _parse_flips(d.pop("flips"))

        higher = d.pop("higher")

        lower = d.pop("lower")

        pair_fragility = cls(
            cis_overlap=cis_overlap,
            flips=flips,
            higher=higher,
            lower=lower,
        )

        pair_fragility.additional_properties = d
        return pair_fragility

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
