from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.position_score_section_reason_type_0 import PositionScoreSectionReasonType0
from ..models.position_score_section_tier import PositionScoreSectionTier

if TYPE_CHECKING:
    from ..models.position_effect_read import PositionEffectRead


T = TypeVar("T", bound="PositionScoreSection")


@_attrs_define
class PositionScoreSection:
    """Position-score bias of one rubric: fitted position effects and the raw position means.

    Attributes:
        by_position (list[PositionEffectRead]):
        n (int): informative scores in the fit
        n_used (int):
        position_p (float | None):
        reason (None | PositionScoreSectionReasonType0):
        rubric (None | str):
        sampled (bool):
        tier (PositionScoreSectionTier):
        variance_flag (bool): variance of position means > 0.5*((max-min)/4)^2
        variance_of_position_means (float | None):
    """

    by_position: list[PositionEffectRead]
    n: int
    n_used: int
    position_p: float | None
    reason: None | PositionScoreSectionReasonType0
    rubric: None | str
    sampled: bool
    tier: PositionScoreSectionTier
    variance_flag: bool
    variance_of_position_means: float | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        by_position = []
        for by_position_item_data in self.by_position:
            by_position_item = by_position_item_data.to_dict()
            by_position.append(by_position_item)

        n = self.n

        n_used = self.n_used

        position_p: float | None
        position_p = self.position_p

        reason: None | str
        if isinstance(self.reason, PositionScoreSectionReasonType0):
            reason = self.reason.value
        else:
            reason = self.reason

        rubric: None | str
        rubric = self.rubric

        sampled = self.sampled

        tier = self.tier.value

        variance_flag = self.variance_flag

        variance_of_position_means: float | None
        variance_of_position_means = self.variance_of_position_means

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "by_position": by_position,
                "n": n,
                "n_used": n_used,
                "position_p": position_p,
                "reason": reason,
                "rubric": rubric,
                "sampled": sampled,
                "tier": tier,
                "variance_flag": variance_flag,
                "variance_of_position_means": variance_of_position_means,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.position_effect_read import PositionEffectRead  # noqa: PLC0415

        d = dict(src_dict)
        by_position = []
        _by_position = d.pop("by_position")
        for by_position_item_data in _by_position:
            by_position_item = PositionEffectRead.from_dict(by_position_item_data)

            by_position.append(by_position_item)

        n = d.pop("n")

        n_used = d.pop("n_used")

        def _parse_position_p(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        position_p = _parse_position_p(d.pop("position_p"))

        def _parse_reason(data: object) -> None | PositionScoreSectionReasonType0:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_type_0 = PositionScoreSectionReasonType0(data)

                return reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PositionScoreSectionReasonType0, data)

        reason = _parse_reason(d.pop("reason"))

        def _parse_rubric(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        rubric = _parse_rubric(d.pop("rubric"))

        sampled = d.pop("sampled")

        tier = PositionScoreSectionTier(d.pop("tier"))

        variance_flag = d.pop("variance_flag")

        def _parse_variance_of_position_means(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        variance_of_position_means = _parse_variance_of_position_means(d.pop("variance_of_position_means"))

        position_score_section = cls(
            by_position=by_position,
            n=n,
            n_used=n_used,
            position_p=position_p,
            reason=reason,
            rubric=rubric,
            sampled=sampled,
            tier=tier,
            variance_flag=variance_flag,
            variance_of_position_means=variance_of_position_means,
        )

        position_score_section.additional_properties = d
        return position_score_section

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
