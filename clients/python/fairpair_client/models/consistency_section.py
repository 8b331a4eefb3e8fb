from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.consistency_section_reason_type_0 import ConsistencySectionReasonType0
from ..models.consistency_section_tier import ConsistencySectionTier

T = TypeVar("T", bound="ConsistencySection")


@_attrs_define
class ConsistencySection:
    """Swap consistency over swap pairs.

    Attributes:
        ci95 (list[float] | None):
        order_kappa (float | None):
        pairs (int):
        position_consistency (float | None):
        preference_fairness (float | None):
        primacy_pairs (int):
        reason (ConsistencySectionReasonType0 | None):
        recency_pairs (int):
        tier (ConsistencySectionTier):
    """

    ci95: list[float] | None
    order_kappa: float | None
    pairs: int
    position_consistency: float | None
    preference_fairness: float | None
    primacy_pairs: int
    reason: ConsistencySectionReasonType0 | None
    recency_pairs: int
    tier: ConsistencySectionTier
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

        order_kappa: float | None
        order_kappa = self.order_kappa

        pairs = self.pairs

        position_consistency: float | None
        position_consistency = self.position_consistency

        preference_fairness: float | None
        preference_fairness = self.preference_fairness

        primacy_pairs = self.primacy_pairs

        reason: None | str
        if isinstance(self.reason, ConsistencySectionReasonType0):
            reason = self.reason.value
        else:
            reason = self.reason

        recency_pairs = self.recency_pairs

        tier = self.tier.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ci95": ci95,
                "order_kappa": order_kappa,
                "pairs": pairs,
                "position_consistency": position_consistency,
                "preference_fairness": preference_fairness,
                "primacy_pairs": primacy_pairs,
                "reason": reason,
                "recency_pairs": recency_pairs,
                "tier": tier,
            }
        )

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

        def _parse_order_kappa(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        order_kappa = _parse_order_kappa(d.pop("order_kappa"))

        pairs = d.pop("pairs")

        def _parse_position_consistency(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        position_consistency = _parse_position_consistency(d.pop("position_consistency"))

        def _parse_preference_fairness(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        preference_fairness = _parse_preference_fairness(d.pop("preference_fairness"))

        primacy_pairs = d.pop("primacy_pairs")

        def _parse_reason(data: object) -> ConsistencySectionReasonType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_type_0 = ConsistencySectionReasonType0(data)

                return reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ConsistencySectionReasonType0 | None, data)

        reason = _parse_reason(d.pop("reason"))

        recency_pairs = d.pop("recency_pairs")

        tier = ConsistencySectionTier(d.pop("tier"))

        consistency_section = cls(
            ci95=ci95,
            order_kappa=order_kappa,
            pairs=pairs,
            position_consistency=position_consistency,
            preference_fairness=preference_fairness,
            primacy_pairs=primacy_pairs,
            reason=reason,
            recency_pairs=recency_pairs,
            tier=tier,
        )

        consistency_section.additional_properties = d
        return consistency_section

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
