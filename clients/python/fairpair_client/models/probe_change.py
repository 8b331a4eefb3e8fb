from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ProbeChange")


@_attrs_define
class ProbeChange:
    """One family against the previous version's card: McNemar's exact test on paired calls.

    Attributes:
        b (int):
        c (int):
        changed (bool):
        family (str):
        p_adjusted (float | None):
        p_value (float):
        pairs (int):
        rate_change (float | None):
    """

    b: int
    c: int
    changed: bool
    family: str
    p_adjusted: float | None
    p_value: float
    pairs: int
    rate_change: float | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        b = self.b

        c = self.c

        changed = self.changed

        family = self.family

        p_adjusted: float | None
        p_adjusted = self.p_adjusted

        p_value = self.p_value

        pairs = self.pairs

        rate_change: float | None
        rate_change = self.rate_change

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "b": b,
                "c": c,
                "changed": changed,
                "family": family,
                "p_adjusted": p_adjusted,
                "p_value": p_value,
                "pairs": pairs,
                "rate_change": rate_change,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        b = d.pop("b")

        c = d.pop("c")

        changed = d.pop("changed")

        family = d.pop("family")

        def _parse_p_adjusted(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        p_adjusted = _parse_p_adjusted(d.pop("p_adjusted"))

        p_value = d.pop("p_value")

        pairs = d.pop("pairs")

        def _parse_rate_change(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        rate_change = _parse_rate_change(d.pop("rate_change"))

        probe_change = cls(
            b=b,
            c=c,
            changed=changed,
            family=family,
            p_adjusted=p_adjusted,
            p_value=p_value,
            pairs=pairs,
            rate_change=rate_change,
        )

        probe_change.additional_properties = d
        return probe_change

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
