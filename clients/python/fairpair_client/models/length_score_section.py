from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.length_score_section_band_type_0 import LengthScoreSectionBandType0
from ..models.length_score_section_tier import LengthScoreSectionTier

if TYPE_CHECKING:
    from ..models.reviewer_correlation_read import ReviewerCorrelationRead


T = TypeVar("T", bound="LengthScoreSection")


@_attrs_define
class LengthScoreSection:
    """Length-score correlation of one rubric, overall and by reviewer.

    Attributes:
        band (LengthScoreSectionBandType0 | None):
        by_reviewer (list[ReviewerCorrelationRead]):
        ci95 (list[float] | None):
        heterogeneous (bool | None):
        i2 (float | None):
        n_used (int):
        pooled_r (float | None):
        q (float | None):
        reason (Literal['insufficient_data'] | None):
        rubric (None | str):
        sampled (bool): only the most recent n_used (reviewer, session) pairs
        sessions (int):
        tier (LengthScoreSectionTier):
    """

    band: LengthScoreSectionBandType0 | None
    by_reviewer: list[ReviewerCorrelationRead]
    ci95: list[float] | None
    heterogeneous: bool | None
    i2: float | None
    n_used: int
    pooled_r: float | None
    q: float | None
    reason: Literal["insufficient_data"] | None
    rubric: None | str
    sampled: bool
    sessions: int
    tier: LengthScoreSectionTier
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        band: None | str
        if isinstance(self.band, LengthScoreSectionBandType0):
            band = self.band.value
        else:
            band = self.band

        by_reviewer = []
        for by_reviewer_item_data in self.by_reviewer:
            by_reviewer_item = by_reviewer_item_data.to_dict()
            by_reviewer.append(by_reviewer_item)

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

        n_used = self.n_used

        pooled_r: float | None
        pooled_r = self.pooled_r

        q: float | None
        q = self.q

        reason: Literal["insufficient_data"] | None
        reason = self.reason

        rubric: None | str
        rubric = self.rubric

        sampled = self.sampled

        sessions = self.sessions

        tier = self.tier.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "band": band,
                "by_reviewer": by_reviewer,
                "ci95": ci95,
                "heterogeneous": heterogeneous,
                "i2": i2,
                "n_used": n_used,
                "pooled_r": pooled_r,
                "q": q,
                "reason": reason,
                "rubric": rubric,
                "sampled": sampled,
                "sessions": sessions,
                "tier": tier,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.reviewer_correlation_read import ReviewerCorrelationRead  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_band(data: object) -> LengthScoreSectionBandType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                band_type_0 = LengthScoreSectionBandType0(data)

                return band_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LengthScoreSectionBandType0 | None, data)

        band = _parse_band(d.pop("band"))

        by_reviewer = []
        _by_reviewer = d.pop("by_reviewer")
        for by_reviewer_item_data in _by_reviewer:
            by_reviewer_item = ReviewerCorrelationRead.from_dict(by_reviewer_item_data)

            by_reviewer.append(by_reviewer_item)

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

        n_used = d.pop("n_used")

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

        def _parse_rubric(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        rubric = _parse_rubric(d.pop("rubric"))

        sampled = d.pop("sampled")

        sessions = d.pop("sessions")

        tier = LengthScoreSectionTier(d.pop("tier"))

        length_score_section = cls(
            band=band,
            by_reviewer=by_reviewer,
            ci95=ci95,
            heterogeneous=heterogeneous,
            i2=i2,
            n_used=n_used,
            pooled_r=pooled_r,
            q=q,
            reason=reason,
            rubric=rubric,
            sampled=sampled,
            sessions=sessions,
            tier=tier,
        )

        length_score_section.additional_properties = d
        return length_score_section

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
