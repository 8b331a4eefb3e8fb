from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ExperimentWinRate")


@_attrs_define
class ExperimentWinRate:
    """The candidate's win rate over the experiment's comparisons (ties one half).

    Attributes:
        ci95 (list[float]): the fixed-sample 95% interval beside it (CLT; [0, 1] below 2 comparisons): valid only at a
            sample size fixed in advance, shown for comparison
        cs95 (list[float]): anytime-valid 95% confidence sequence: valid however often it is read
        value (float):
        source (Literal['judge'] | Unset): what the figures and the decision use: the judges' verdicts Default: 'judge'.
    """

    ci95: list[float]
    cs95: list[float]
    value: float
    source: Literal["judge"] | Unset = "judge"
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        ci95 = []
        for ci95_item_data in self.ci95:
            ci95_item: float
            ci95_item = ci95_item_data
            ci95.append(ci95_item)

        cs95 = []
        for cs95_item_data in self.cs95:
            cs95_item: float
            cs95_item = cs95_item_data
            cs95.append(cs95_item)

        value = self.value

        source = self.source

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ci95": ci95,
                "cs95": cs95,
                "value": value,
            }
        )
        if source is not UNSET:
            field_dict["source"] = source

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        ci95 = []
        _ci95 = d.pop("ci95")
        for ci95_item_data in _ci95:

            def _parse_ci95_item(data: object) -> float:
                return cast(float, data)

            ci95_item = _parse_ci95_item(ci95_item_data)

            ci95.append(ci95_item)

        cs95 = []
        _cs95 = d.pop("cs95")
        for cs95_item_data in _cs95:

            def _parse_cs95_item(data: object) -> float:
                return cast(float, data)

            cs95_item = _parse_cs95_item(cs95_item_data)

            cs95.append(cs95_item)

        value = d.pop("value")

        source = cast(Literal["judge"] | Unset, d.pop("source", UNSET))
        if source != "judge" and not isinstance(source, Unset):
            raise ValueError(f"source must match const 'judge', got '{source}'")

        experiment_win_rate = cls(
            ci95=ci95,
            cs95=cs95,
            value=value,
            source=source,
        )

        experiment_win_rate.additional_properties = d
        return experiment_win_rate

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
