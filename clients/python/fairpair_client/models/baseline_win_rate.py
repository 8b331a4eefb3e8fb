from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.baseline_win_rate_reason_type_0 import BaselineWinRateReasonType0

T = TypeVar("T", bound="BaselineWinRate")


@_attrs_define
class BaselineWinRate:
    """Win rates of a model against the baseline, in percent, over their direct comparisons.

    Attributes:
        lc_warning (bool): |LC − raw| > 10 points: length explains much of it
        lc_win_rate (float | None): length-controlled win rate
        lc_win_rate_se (float | None):
        n (int): direct comparisons with the baseline
        reason (BaselineWinRateReasonType0 | None):
        win_rate (float | None): raw win rate, a tie counting half
        win_rate_se (float | None):
    """

    lc_warning: bool
    lc_win_rate: float | None
    lc_win_rate_se: float | None
    n: int
    reason: BaselineWinRateReasonType0 | None
    win_rate: float | None
    win_rate_se: float | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        lc_warning = self.lc_warning

        lc_win_rate: float | None
        lc_win_rate = self.lc_win_rate

        lc_win_rate_se: float | None
        lc_win_rate_se = self.lc_win_rate_se

        n = self.n

        reason: None | str
        if isinstance(self.reason, BaselineWinRateReasonType0):
            reason = self.reason.value
        else:
            reason = self.reason

        win_rate: float | None
        win_rate = self.win_rate

        win_rate_se: float | None
        win_rate_se = self.win_rate_se

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "lc_warning": lc_warning,
                "lc_win_rate": lc_win_rate,
                "lc_win_rate_se": lc_win_rate_se,
                "n": n,
                "reason": reason,
                "win_rate": win_rate,
                "win_rate_se": win_rate_se,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        lc_warning = d.pop("lc_warning")

        def _parse_lc_win_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        lc_win_rate = _parse_lc_win_rate(d.pop("lc_win_rate"))

        def _parse_lc_win_rate_se(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        lc_win_rate_se = _parse_lc_win_rate_se(d.pop("lc_win_rate_se"))

        n = d.pop("n")

        def _parse_reason(data: object) -> BaselineWinRateReasonType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_type_0 = BaselineWinRateReasonType0(data)

                return reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BaselineWinRateReasonType0 | None, data)

        reason = _parse_reason(d.pop("reason"))

        def _parse_win_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        win_rate = _parse_win_rate(d.pop("win_rate"))

        def _parse_win_rate_se(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        win_rate_se = _parse_win_rate_se(d.pop("win_rate_se"))

        baseline_win_rate = cls(
            lc_warning=lc_warning,
            lc_win_rate=lc_win_rate,
            lc_win_rate_se=lc_win_rate_se,
            n=n,
            reason=reason,
            win_rate=win_rate,
            win_rate_se=win_rate_se,
        )

        baseline_win_rate.additional_properties = d
        return baseline_win_rate

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
