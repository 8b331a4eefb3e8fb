from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.paired_test_read_name import PairedTestReadName

T = TypeVar("T", bound="PairedTestRead")


@_attrs_define
class PairedTestRead:
    """One paired test of this run against the judge's previous run on the same items: an exact
    two-sided binomial test of `c` items that moved one way against `b` that moved the other.

        Attributes:
            b (int): items that moved down (e.g. correct before, wrong now)
            c (int): items that moved up (e.g. wrong before, correct now)
            ci95 (list[float] | None):
            difference (float | None): this run's rate minus the previous run's
            effect (float | None):
            n (int): items the test compared
            name (PairedTestReadName):
            p_adjusted (float): Holm-adjusted over the judge's paired tests
            p_value (float):
            significant (bool): p_adjusted < 0.05 and effect ≥ the minimum effect
    """

    b: int
    c: int
    ci95: list[float] | None
    difference: float | None
    effect: float | None
    n: int
    name: PairedTestReadName
    p_adjusted: float
    p_value: float
    significant: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        b = self.b

        c = self.c

        ci95: list[float] | None
        if isinstance(self.ci95, list):
            ci95 = []
            for ci95_type_0_item_data in self.ci95:
                ci95_type_0_item: float
                ci95_type_0_item = ci95_type_0_item_data
                ci95.append(ci95_type_0_item)

        else:
            ci95 = self.ci95

        difference: float | None
        difference = self.difference

        effect: float | None
        effect = self.effect

        n = self.n

        name = self.name.value

        p_adjusted = self.p_adjusted

        p_value = self.p_value

        significant = self.significant

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "b": b,
                "c": c,
                "ci95": ci95,
                "difference": difference,
                "effect": effect,
                "n": n,
                "name": name,
                "p_adjusted": p_adjusted,
                "p_value": p_value,
                "significant": significant,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        b = d.pop("b")

        c = d.pop("c")

        def _parse_ci95(data: object) -> list[float] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                ci95_type_0 = []
                _ci95_type_0 = data
                for ci95_type_0_item_data in _ci95_type_0:

                    def _parse_ci95_type_0_item(data: object) -> float:
                        return cast(float, data)

                    ci95_type_0_item = _parse_ci95_type_0_item(ci95_type_0_item_data)

                    ci95_type_0.append(ci95_type_0_item)

                return ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None, data)

        ci95 = _parse_ci95(d.pop("ci95"))

        def _parse_difference(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        difference = _parse_difference(d.pop("difference"))

        def _parse_effect(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        effect = _parse_effect(d.pop("effect"))

        n = d.pop("n")

        name = PairedTestReadName(d.pop("name"))

        p_adjusted = d.pop("p_adjusted")

        p_value = d.pop("p_value")

        significant = d.pop("significant")

        paired_test_read = cls(
            b=b,
            c=c,
            ci95=ci95,
            difference=difference,
            effect=effect,
            n=n,
            name=name,
            p_adjusted=p_adjusted,
            p_value=p_value,
            significant=significant,
        )

        paired_test_read.additional_properties = d
        return paired_test_read

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
