from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.reviewer_correlation_read_band_type_0 import ReviewerCorrelationReadBandType0
from ..models.reviewer_correlation_read_tier import ReviewerCorrelationReadTier

T = TypeVar("T", bound="ReviewerCorrelationRead")


@_attrs_define
class ReviewerCorrelationRead:
    """The pool of one reviewer.

    Attributes:
        band (None | ReviewerCorrelationReadBandType0):
        ci95 (list[float] | None):
        heterogeneous (bool | None):
        i2 (float | None):
        pooled_r (float | None):
        q (float | None):
        reason (Literal['insufficient_data'] | None):
        reviewer (str):
        sessions (int):
        tier (ReviewerCorrelationReadTier):
    """

    band: None | ReviewerCorrelationReadBandType0
    ci95: list[float] | None
    heterogeneous: bool | None
    i2: float | None
    pooled_r: float | None
    q: float | None
    reason: Literal["insufficient_data"] | None
    reviewer: str
    sessions: int
    tier: ReviewerCorrelationReadTier
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        band: None | str
        if isinstance(self.band, ReviewerCorrelationReadBandType0):
            band = self.band.value
        else:
            band = self.band

        ci95: list[float] | None
        if isinstance(self.ci95, list):
            ci95 = []
            for ci95_type_0_item_data in self.ci95:
                ci95_type_0_item: float
                ci95_type_0_item = ci95_type_0_item_data
                ci95.append(ci95_type_0_item)

        else:
            ci95 = self.ci95

        heterogeneous: bool | None
        heterogeneous = self.heterogeneous

        i2: float | None
        i2 = self.i2

        pooled_r: float | None
        pooled_r = self.pooled_r

        q: float | None
        q = self.q

        reason: Literal["insufficient_data"] | None
        reason = self.reason

        reviewer = self.reviewer

        sessions = self.sessions

        tier = self.tier.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "band": band,
                "ci95": ci95,
                "heterogeneous": heterogeneous,
                "i2": i2,
                "pooled_r": pooled_r,
                "q": q,
                "reason": reason,
                "reviewer": reviewer,
                "sessions": sessions,
                "tier": tier,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_band(data: object) -> None | ReviewerCorrelationReadBandType0:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                band_type_0 = ReviewerCorrelationReadBandType0(data)

                return band_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReviewerCorrelationReadBandType0, data)

        band = _parse_band(d.pop("band"))

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

        def _parse_heterogeneous(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        heterogeneous = _parse_heterogeneous(d.pop("heterogeneous"))

        def _parse_i2(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        i2 = _parse_i2(d.pop("i2"))

        def _parse_pooled_r(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        pooled_r = _parse_pooled_r(d.pop("pooled_r"))

        def _parse_q(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        q = _parse_q(d.pop("q"))

        def _parse_reason(data: object) -> Literal["insufficient_data"] | None:
            if data is None:
                return data
            reason_type_0 = cast(Literal["insufficient_data"], data)
            if reason_type_0 != "insufficient_data":
                raise ValueError(f"reason_type_0 must match const 'insufficient_data', got '{reason_type_0}'")
            return reason_type_0
            return cast(Literal["insufficient_data"] | None, data)

        reason = _parse_reason(d.pop("reason"))

        reviewer = d.pop("reviewer")

        sessions = d.pop("sessions")

        tier = ReviewerCorrelationReadTier(d.pop("tier"))

        reviewer_correlation_read = cls(
            band=band,
            ci95=ci95,
            heterogeneous=heterogeneous,
            i2=i2,
            pooled_r=pooled_r,
            q=q,
            reason=reason,
            reviewer=reviewer,
            sessions=sessions,
            tier=tier,
        )

        reviewer_correlation_read.additional_properties = d
        return reviewer_correlation_read

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
