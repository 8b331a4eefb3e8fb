from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.length_section_reason_type_0 import LengthSectionReasonType0
from ..models.length_section_tier import LengthSectionTier
from ..types import UNSET, Unset

T = TypeVar("T", bound="LengthSection")


@_attrs_define
class LengthSection:
    """Length preference: descriptive longer-win rate and Spearman ρ(Δlen, y_c).

    Attributes:
        ci95 (list[float] | None):
        longer_win_n (int): comparisons with y_c ≠ 0 and a large enough |Δlen|
        longer_win_rate (float | None):
        n (int): comparisons with a parsed design call of the judge
        n_used (int):
        p_adjusted (float | None): the same as spearman_p_adjusted (kept: field names are a contract)
        p_value (float | None): exact binomial p of the longer-win rate
        reason (LengthSectionReasonType0 | None): why a figure is null: `insufficient_data` (below the tier's bound),
            `no_variation` (enough comparisons, but Δlen or the outcome never varies, so ρ is undefined, or no decisive
            comparison has a large enough |Δlen| for the longer-win rate)
        sampled (bool): Spearman used only the most recent n_used comparisons
        significant (bool): spearman_p_adjusted < 0.05 and |ρ| ≥ the correlation floor: the traffic's outcomes go with
            length; descriptive, it raises no flag (see `length_bias`)
        spearman (float | None):
        spearman_p (float | None):
        tier (LengthSectionTier):
        p_value_adjusted (float | None | Unset): p_value, Holm-adjusted over judges (descriptive: no flag reads it)
        prefers_longer (bool | None | Unset): descriptive: the judge's outcomes favour the longer response in the
            traffic (significant and ρ > 0). Where better answers are also longer this is what a fair judge does too, so it
            is no bias: `length_bias` is raised from human_baseline.length (the judge's excess over the labelers on the same
            comparisons) only; null below tier preliminary
        spearman_p_adjusted (float | None | Unset): spearman_p, Holm-adjusted over judges: what `significant` reads
    """

    ci95: list[float] | None
    longer_win_n: int
    longer_win_rate: float | None
    n: int
    n_used: int
    p_adjusted: float | None
    p_value: float | None
    reason: LengthSectionReasonType0 | None
    sampled: bool
    significant: bool
    spearman: float | None
    spearman_p: float | None
    tier: LengthSectionTier
    p_value_adjusted: float | None | Unset = UNSET
    prefers_longer: bool | None | Unset = UNSET
    spearman_p_adjusted: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        ci95: list[float] | None
        if isinstance(self.ci95, list):
            ci95 = []
            for ci95_type_0_item_data in self.ci95:
                ci95_type_0_item: float
                ci95_type_0_item = ci95_type_0_item_data
                ci95.append(ci95_type_0_item)

        else:
            ci95 = self.ci95

        longer_win_n = self.longer_win_n

        longer_win_rate: float | None
        longer_win_rate = self.longer_win_rate

        n = self.n

        n_used = self.n_used

        p_adjusted: float | None
        p_adjusted = self.p_adjusted

        p_value: float | None
        p_value = self.p_value

        reason: None | str
        if isinstance(self.reason, LengthSectionReasonType0):
            reason = self.reason.value
        else:
            reason = self.reason

        sampled = self.sampled

        significant = self.significant

        spearman: float | None
        spearman = self.spearman

        spearman_p: float | None
        spearman_p = self.spearman_p

        tier = self.tier.value

        p_value_adjusted: float | None | Unset
        if isinstance(self.p_value_adjusted, Unset):
            p_value_adjusted = UNSET
        else:
            p_value_adjusted = self.p_value_adjusted

        prefers_longer: bool | None | Unset
        if isinstance(self.prefers_longer, Unset):
            prefers_longer = UNSET
        else:
            prefers_longer = self.prefers_longer

        spearman_p_adjusted: float | None | Unset
        if isinstance(self.spearman_p_adjusted, Unset):
            spearman_p_adjusted = UNSET
        else:
            spearman_p_adjusted = self.spearman_p_adjusted

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ci95": ci95,
                "longer_win_n": longer_win_n,
                "longer_win_rate": longer_win_rate,
                "n": n,
                "n_used": n_used,
                "p_adjusted": p_adjusted,
                "p_value": p_value,
                "reason": reason,
                "sampled": sampled,
                "significant": significant,
                "spearman": spearman,
                "spearman_p": spearman_p,
                "tier": tier,
            }
        )
        if p_value_adjusted is not UNSET:
            field_dict["p_value_adjusted"] = p_value_adjusted
        if prefers_longer is not UNSET:
            field_dict["prefers_longer"] = prefers_longer
        if spearman_p_adjusted is not UNSET:
            field_dict["spearman_p_adjusted"] = spearman_p_adjusted

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

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

        longer_win_n = d.pop("longer_win_n")

        def _parse_longer_win_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        longer_win_rate = _parse_longer_win_rate(d.pop("longer_win_rate"))

        n = d.pop("n")

        n_used = d.pop("n_used")

        def _parse_p_adjusted(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        p_adjusted = _parse_p_adjusted(d.pop("p_adjusted"))

        def _parse_p_value(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        p_value = _parse_p_value(d.pop("p_value"))

        def _parse_reason(data: object) -> LengthSectionReasonType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_type_0 = LengthSectionReasonType0(data)

                return reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LengthSectionReasonType0 | None, data)

        reason = _parse_reason(d.pop("reason"))

        sampled = d.pop("sampled")

        significant = d.pop("significant")

        def _parse_spearman(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        spearman = _parse_spearman(d.pop("spearman"))

        def _parse_spearman_p(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        spearman_p = _parse_spearman_p(d.pop("spearman_p"))

        tier = LengthSectionTier(d.pop("tier"))

        def _parse_p_value_adjusted(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        p_value_adjusted = _parse_p_value_adjusted(d.pop("p_value_adjusted", UNSET))

        def _parse_prefers_longer(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        prefers_longer = _parse_prefers_longer(d.pop("prefers_longer", UNSET))

        def _parse_spearman_p_adjusted(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        spearman_p_adjusted = _parse_spearman_p_adjusted(d.pop("spearman_p_adjusted", UNSET))

        length_section = cls(
            ci95=ci95,
            longer_win_n=longer_win_n,
            longer_win_rate=longer_win_rate,
            n=n,
            n_used=n_used,
            p_adjusted=p_adjusted,
            p_value=p_value,
            reason=reason,
            sampled=sampled,
            significant=significant,
            spearman=spearman,
            spearman_p=spearman_p,
            tier=tier,
            p_value_adjusted=p_value_adjusted,
            prefers_longer=prefers_longer,
            spearman_p_adjusted=spearman_p_adjusted,
        )

        length_section.additional_properties = d
        return length_section

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
