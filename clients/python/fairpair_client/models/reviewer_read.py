from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.reviewer_read_classification_type_0 import ReviewerReadClassificationType0
from ..models.reviewer_read_reason_type_0 import ReviewerReadReasonType0
from ..models.reviewer_read_tier import ReviewerReadTier
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.reviewer_self_preference_read import ReviewerSelfPreferenceRead


T = TypeVar("T", bound="ReviewerRead")


@_attrs_define
class ReviewerRead:
    """One reviewer's calibration on one rubric.

    Attributes:
        ci95 (list[float] | None):
        classification (None | ReviewerReadClassificationType0):
        n (int): informative scores (items scored by >= 2 reviewers)
        n_total (int):
        n_used (int): informative scores of the whole panel on this rubric that the CI's cluster-robust covariance read
            (the offsets are fitted jointly, so every reviewer of the rubric shows the same number); the reviewer's own
            count is `n`
        offset (float | None):
        raw_mean (float | None):
        reason (None | ReviewerReadReasonType0):
        reviewer (str):
        rubric (str):
        sampled (bool): the CI's covariance read only the panel's most recent n_used scores
        sd (float | None):
        tier (ReviewerReadTier):
        z (float | None): descriptive; not used for classification
        self_preference (None | ReviewerSelfPreferenceRead | Unset): in the bias report; null in calibration snapshots
    """

    ci95: list[float] | None
    classification: None | ReviewerReadClassificationType0
    n: int
    n_total: int
    n_used: int
    offset: float | None
    raw_mean: float | None
    reason: None | ReviewerReadReasonType0
    reviewer: str
    rubric: str
    sampled: bool
    sd: float | None
    tier: ReviewerReadTier
    z: float | None
    self_preference: None | ReviewerSelfPreferenceRead | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.reviewer_self_preference_read import ReviewerSelfPreferenceRead  # noqa: PLC0415

        ci95: list[float] | None
        if isinstance(self.ci95, list):
            ci95 = []
            for ci95_type_0_item_data in self.ci95:
                ci95_type_0_item: float
                ci95_type_0_item = ci95_type_0_item_data
                ci95.append(ci95_type_0_item)

        else:
            ci95 = self.ci95

        classification: None | str
        if isinstance(self.classification, ReviewerReadClassificationType0):
            classification = self.classification.value
        else:
            classification = self.classification

        n = self.n

        n_total = self.n_total

        n_used = self.n_used

        offset: float | None
        offset = self.offset

        raw_mean: float | None
        raw_mean = self.raw_mean

        reason: None | str
        if isinstance(self.reason, ReviewerReadReasonType0):
            reason = self.reason.value
        else:
            reason = self.reason

        reviewer = self.reviewer

        rubric = self.rubric

        sampled = self.sampled

        sd: float | None
        sd = self.sd

        tier = self.tier.value

        z: float | None
        z = self.z

        self_preference: dict[str, Any] | None | Unset
        if isinstance(self.self_preference, Unset):
            self_preference = UNSET
        elif isinstance(self.self_preference, ReviewerSelfPreferenceRead):
            self_preference = self.self_preference.to_dict()
        else:
            self_preference = self.self_preference

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ci95": ci95,
                "classification": classification,
                "n": n,
                "n_total": n_total,
                "n_used": n_used,
                "offset": offset,
                "raw_mean": raw_mean,
                "reason": reason,
                "reviewer": reviewer,
                "rubric": rubric,
                "sampled": sampled,
                "sd": sd,
                "tier": tier,
                "z": z,
            }
        )
        if self_preference is not UNSET:
            field_dict["self_preference"] = self_preference

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.reviewer_self_preference_read import ReviewerSelfPreferenceRead  # noqa: PLC0415

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

        def _parse_classification(data: object) -> None | ReviewerReadClassificationType0:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                classification_type_0 = ReviewerReadClassificationType0(data)

                return classification_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReviewerReadClassificationType0, data)

        classification = _parse_classification(d.pop("classification"))

        n = d.pop("n")

        n_total = d.pop("n_total")

        n_used = d.pop("n_used")

        def _parse_offset(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        offset = _parse_offset(d.pop("offset"))

        def _parse_raw_mean(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        raw_mean = _parse_raw_mean(d.pop("raw_mean"))

        def _parse_reason(data: object) -> None | ReviewerReadReasonType0:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_type_0 = ReviewerReadReasonType0(data)

                return reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReviewerReadReasonType0, data)

        reason = _parse_reason(d.pop("reason"))

        reviewer = d.pop("reviewer")

        rubric = d.pop("rubric")

        sampled = d.pop("sampled")

        def _parse_sd(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        sd = _parse_sd(d.pop("sd"))

        tier = ReviewerReadTier(d.pop("tier"))

        def _parse_z(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        z = _parse_z(d.pop("z"))

        def _parse_self_preference(data: object) -> None | ReviewerSelfPreferenceRead | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                self_preference_type_0 = ReviewerSelfPreferenceRead.from_dict(data)

                return self_preference_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReviewerSelfPreferenceRead | Unset, data)

        self_preference = _parse_self_preference(d.pop("self_preference", UNSET))

        reviewer_read = cls(
            ci95=ci95,
            classification=classification,
            n=n,
            n_total=n_total,
            n_used=n_used,
            offset=offset,
            raw_mean=raw_mean,
            reason=reason,
            reviewer=reviewer,
            rubric=rubric,
            sampled=sampled,
            sd=sd,
            tier=tier,
            z=z,
            self_preference=self_preference,
        )

        reviewer_read.additional_properties = d
        return reviewer_read

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
