from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.reviewer_self_preference_read_reason_type_0 import ReviewerSelfPreferenceReadReasonType0
from ..models.reviewer_self_preference_read_tier import ReviewerSelfPreferenceReadTier

T = TypeVar("T", bound="ReviewerSelfPreferenceRead")


@_attrs_define
class ReviewerSelfPreferenceRead:
    """The reviewer's own-family score gap on one rubric (STATISTICS.md "Self-preference",
    for scores): per session where it scored a response of its own family and a reviewer
    conflicted on no response scored the same responses, gap = mean over its own-family
    responses of (its score - the neutral reviewers' mean) minus the same over its other
    responses; `delta` = mean gap over sessions.

        Attributes:
            ci95 (list[float] | None): percentile bootstrap over sessions, 1,000 resamples, seed 0
            delta (float | None): rubric points; positive favours its own family
            n (int): sessions with a gap
            reason (None | ReviewerSelfPreferenceReadReasonType0):
            sampled (bool): only the most recent audited sessions were read
            significant (bool): ci95 excludes 0 and |delta| >= the reviewer margin (0.1 x rubric range)
            tier (ReviewerSelfPreferenceReadTier):
    """

    ci95: list[float] | None
    delta: float | None
    n: int
    reason: None | ReviewerSelfPreferenceReadReasonType0
    sampled: bool
    significant: bool
    tier: ReviewerSelfPreferenceReadTier
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

        delta: float | None
        delta = self.delta

        n = self.n

        reason: None | str
        if isinstance(self.reason, ReviewerSelfPreferenceReadReasonType0):
            reason = self.reason.value
        else:
            reason = self.reason

        sampled = self.sampled

        significant = self.significant

        tier = self.tier.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ci95": ci95,
                "delta": delta,
                "n": n,
                "reason": reason,
                "sampled": sampled,
                "significant": significant,
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

        def _parse_delta(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        delta = _parse_delta(d.pop("delta"))

        n = d.pop("n")

        def _parse_reason(data: object) -> None | ReviewerSelfPreferenceReadReasonType0:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_type_0 = ReviewerSelfPreferenceReadReasonType0(data)

                return reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReviewerSelfPreferenceReadReasonType0, data)

        reason = _parse_reason(d.pop("reason"))

        sampled = d.pop("sampled")

        significant = d.pop("significant")

        tier = ReviewerSelfPreferenceReadTier(d.pop("tier"))

        reviewer_self_preference_read = cls(
            ci95=ci95,
            delta=delta,
            n=n,
            reason=reason,
            sampled=sampled,
            significant=significant,
            tier=tier,
        )

        reviewer_self_preference_read.additional_properties = d
        return reviewer_self_preference_read

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
