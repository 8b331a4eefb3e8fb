from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.reliability_bin_read import ReliabilityBinRead


T = TypeVar("T", bound="SourceCalibration")


@_attrs_define
class SourceCalibration:
    """Calibration of one confidence source; sources are never mixed.

    Attributes:
        brier (float | None):
        confident_wrong_rate (float | None): confidence ≥ 0.9 and wrong, over n
        n (int): parsed design calls with a confidence on gold comparisons
        reliability (list[ReliabilityBinRead]):
        confident_wrong_rate_ci95 (list[float] | None | Unset): Wilson over the calls, as if independent (a swap pair's
            two calls are not: a comparison-level interval would be wider)
    """

    brier: float | None
    confident_wrong_rate: float | None
    n: int
    reliability: list[ReliabilityBinRead]
    confident_wrong_rate_ci95: list[float] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        brier: float | None
        brier = self.brier

        confident_wrong_rate: float | None
        confident_wrong_rate = self.confident_wrong_rate

        n = self.n

        reliability = []
        for reliability_item_data in self.reliability:
            reliability_item = reliability_item_data.to_dict()
            reliability.append(reliability_item)

        confident_wrong_rate_ci95: list[float] | None | Unset
        if isinstance(self.confident_wrong_rate_ci95, Unset):
            confident_wrong_rate_ci95 = UNSET
        elif isinstance(self.confident_wrong_rate_ci95, list):
            confident_wrong_rate_ci95 = []
            for confident_wrong_rate_ci95_type_0_item_data in self.confident_wrong_rate_ci95:
                confident_wrong_rate_ci95_type_0_item: float
                confident_wrong_rate_ci95_type_0_item = confident_wrong_rate_ci95_type_0_item_data
                confident_wrong_rate_ci95.append(confident_wrong_rate_ci95_type_0_item)

        else:
            confident_wrong_rate_ci95 = self.confident_wrong_rate_ci95

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "brier": brier,
                "confident_wrong_rate": confident_wrong_rate,
                "n": n,
                "reliability": reliability,
            }
        )
        if confident_wrong_rate_ci95 is not UNSET:
            field_dict["confident_wrong_rate_ci95"] = confident_wrong_rate_ci95

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.reliability_bin_read import ReliabilityBinRead  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_brier(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        brier = _parse_brier(d.pop("brier"))

        def _parse_confident_wrong_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        confident_wrong_rate = _parse_confident_wrong_rate(d.pop("confident_wrong_rate"))

        n = d.pop("n")

        reliability = []
        _reliability = d.pop("reliability")
        for reliability_item_data in _reliability:
            reliability_item = ReliabilityBinRead.from_dict(reliability_item_data)

            reliability.append(reliability_item)

        def _parse_confident_wrong_rate_ci95(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                confident_wrong_rate_ci95_type_0 = []
                _confident_wrong_rate_ci95_type_0 = data
                for confident_wrong_rate_ci95_type_0_item_data in _confident_wrong_rate_ci95_type_0:

                    def _parse_confident_wrong_rate_ci95_type_0_item(data: object) -> float:
                        return cast(float, data)

                    confident_wrong_rate_ci95_type_0_item = _parse_confident_wrong_rate_ci95_type_0_item(
                        confident_wrong_rate_ci95_type_0_item_data
                    )

                    confident_wrong_rate_ci95_type_0.append(confident_wrong_rate_ci95_type_0_item)

                return confident_wrong_rate_ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None | Unset, data)

        confident_wrong_rate_ci95 = _parse_confident_wrong_rate_ci95(d.pop("confident_wrong_rate_ci95", UNSET))

        source_calibration = cls(
            brier=brier,
            confident_wrong_rate=confident_wrong_rate,
            n=n,
            reliability=reliability,
            confident_wrong_rate_ci95=confident_wrong_rate_ci95,
        )

        source_calibration.additional_properties = d
        return source_calibration

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
