from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ProbeFigure")


@_attrs_define
class ProbeFigure:
    """One probe family: the wrong side's share of decisive calls, its CI, tier and mark.

    Attributes:
        calls (int):
        ci (list[float] | None):
        ci_level (float):
        design_effect (float):
        family (str):
        limit (float):
        mark (str):
        n (int):
        rate (float | None):
        tier (str):
    """

    calls: int
    ci: list[float] | None
    ci_level: float
    design_effect: float
    family: str
    limit: float
    mark: str
    n: int
    rate: float | None
    tier: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        calls = self.calls

        ci: list[float] | None
        if isinstance(self.ci, list):
            ci = []
            for ci_type_0_item_data in self.ci:
                ci_type_0_item: float
                ci_type_0_item = ci_type_0_item_data
                ci.append(ci_type_0_item)

        else:
            ci = self.ci

        ci_level = self.ci_level

        design_effect = self.design_effect

        family = self.family

        limit = self.limit

        mark = self.mark

        n = self.n

        rate: float | None
        rate = self.rate

        tier = self.tier

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "calls": calls,
                "ci": ci,
                "ci_level": ci_level,
                "design_effect": design_effect,
                "family": family,
                "limit": limit,
                "mark": mark,
                "n": n,
                "rate": rate,
                "tier": tier,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        calls = d.pop("calls")

        def _parse_ci(data: object) -> list[float] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                ci_type_0 = []
                _ci_type_0 = data
                for ci_type_0_item_data in _ci_type_0:

                    def _parse_ci_type_0_item(data: object) -> float:
                        return cast(float, data)

                    ci_type_0_item = _parse_ci_type_0_item(ci_type_0_item_data)

                    ci_type_0.append(ci_type_0_item)

                return ci_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None, data)

        ci = _parse_ci(d.pop("ci"))

        ci_level = d.pop("ci_level")

        design_effect = d.pop("design_effect")

        family = d.pop("family")

        limit = d.pop("limit")

        mark = d.pop("mark")

        n = d.pop("n")

        def _parse_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        rate = _parse_rate(d.pop("rate"))

        tier = d.pop("tier")

        probe_figure = cls(
            calls=calls,
            ci=ci,
            ci_level=ci_level,
            design_effect=design_effect,
            family=family,
            limit=limit,
            mark=mark,
            n=n,
            rate=rate,
            tier=tier,
        )

        probe_figure.additional_properties = d
        return probe_figure

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
