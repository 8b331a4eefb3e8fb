from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ReliabilityBinRead")


@_attrs_define
class ReliabilityBinRead:
    """One confidence decile: [lower, upper), the last one closed.

    Attributes:
        accuracy (float | None):
        lower (float):
        mean_confidence (float | None):
        n (int):
        upper (float):
        accuracy_ci95 (list[float] | None | Unset): Wilson over the calls, as if independent (a swap pair's two calls
            are not: a comparison-level interval would be wider)
    """

    accuracy: float | None
    lower: float
    mean_confidence: float | None
    n: int
    upper: float
    accuracy_ci95: list[float] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        accuracy: float | None
        accuracy = self.accuracy

        lower = self.lower

        mean_confidence: float | None
        mean_confidence = self.mean_confidence

        n = self.n

        upper = self.upper

        accuracy_ci95: list[float] | None | Unset
        if isinstance(self.accuracy_ci95, Unset):
            accuracy_ci95 = UNSET
        elif isinstance(self.accuracy_ci95, list):
            accuracy_ci95 = []
            for accuracy_ci95_type_0_item_data in self.accuracy_ci95:
                accuracy_ci95_type_0_item: float
                accuracy_ci95_type_0_item = accuracy_ci95_type_0_item_data
                accuracy_ci95.append(accuracy_ci95_type_0_item)

        else:
            accuracy_ci95 = self.accuracy_ci95

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "accuracy": accuracy,
                "lower": lower,
                "mean_confidence": mean_confidence,
                "n": n,
                "upper": upper,
            }
        )
        if accuracy_ci95 is not UNSET:
            field_dict["accuracy_ci95"] = accuracy_ci95

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_accuracy(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        accuracy = _parse_accuracy(d.pop("accuracy"))

        lower = d.pop("lower")

        def _parse_mean_confidence(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        mean_confidence = _parse_mean_confidence(d.pop("mean_confidence"))

        n = d.pop("n")

        upper = d.pop("upper")

        def _parse_accuracy_ci95(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                accuracy_ci95_type_0 = []
                _accuracy_ci95_type_0 = data
                for accuracy_ci95_type_0_item_data in _accuracy_ci95_type_0:

                    def _parse_accuracy_ci95_type_0_item(data: object) -> float:
                        return cast(float, data)

                    accuracy_ci95_type_0_item = _parse_accuracy_ci95_type_0_item(accuracy_ci95_type_0_item_data)

                    accuracy_ci95_type_0.append(accuracy_ci95_type_0_item)

                return accuracy_ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None | Unset, data)

        accuracy_ci95 = _parse_accuracy_ci95(d.pop("accuracy_ci95", UNSET))

        reliability_bin_read = cls(
            accuracy=accuracy,
            lower=lower,
            mean_confidence=mean_confidence,
            n=n,
            upper=upper,
            accuracy_ci95=accuracy_ci95,
        )

        reliability_bin_read.additional_properties = d
        return reliability_bin_read

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
