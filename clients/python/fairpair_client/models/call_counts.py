from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.call_counts_tier import CallCountsTier
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.call_counts_by_error_kind import CallCountsByErrorKind


T = TypeVar("T", bound="CallCounts")


@_attrs_define
class CallCounts:
    """Every call of the judge (all rounds), placebo comparisons included: the failure rate
    counts every failed call; the bias sections leave placebo comparisons out.

        Attributes:
            by_error_kind (CallCountsByErrorKind):
            design (int):
            failed (int):
            parsed (int):
            ties (int):
            total (int):
            failure_rate (float | None | Unset): failed / total
            failure_rate_ci95 (list[float] | None | Unset):
            placebo (int | Unset): calls on placebo comparisons (counted in every figure here) Default: 0.
            reasoning_tokens (int | Unset): of tokens_out, those a reasoning model spent reasoning Default: 0.
            tier (CallCountsTier | Unset): by calls (thresholds of decisive calls); high_failure_rate needs moderate
                Default: CallCountsTier.INSUFFICIENT.
            tokens_in (int | Unset): input tokens the judge's calls reported Default: 0.
            tokens_out (int | Unset): output tokens the judge's calls reported Default: 0.
    """

    by_error_kind: CallCountsByErrorKind
    design: int
    failed: int
    parsed: int
    ties: int
    total: int
    failure_rate: float | None | Unset = UNSET
    failure_rate_ci95: list[float] | None | Unset = UNSET
    placebo: int | Unset = 0
    reasoning_tokens: int | Unset = 0
    tier: CallCountsTier | Unset = CallCountsTier.INSUFFICIENT
    tokens_in: int | Unset = 0
    tokens_out: int | Unset = 0
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        by_error_kind = self.by_error_kind.to_dict()

        design = self.design

        failed = self.failed

        parsed = self.parsed

        ties = self.ties

        total = self.total

        failure_rate: float | None | Unset
        if isinstance(self.failure_rate, Unset):
            failure_rate = UNSET
        else:
            failure_rate = self.failure_rate

        failure_rate_ci95: list[float] | None | Unset
        if isinstance(self.failure_rate_ci95, Unset):
            failure_rate_ci95 = UNSET
        elif isinstance(self.failure_rate_ci95, list):
            failure_rate_ci95 = []
            for failure_rate_ci95_type_0_item_data in self.failure_rate_ci95:
                failure_rate_ci95_type_0_item: float
                failure_rate_ci95_type_0_item = failure_rate_ci95_type_0_item_data
                failure_rate_ci95.append(failure_rate_ci95_type_0_item)

        else:
            failure_rate_ci95 = self.failure_rate_ci95

        placebo = self.placebo

        reasoning_tokens = self.reasoning_tokens

        tier: str | Unset = UNSET
        if not isinstance(self.tier, Unset):
            tier = self.tier.value

        tokens_in = self.tokens_in

        tokens_out = self.tokens_out

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "by_error_kind": by_error_kind,
                "design": design,
                "failed": failed,
                "parsed": parsed,
                "ties": ties,
                "total": total,
            }
        )
        if failure_rate is not UNSET:
            field_dict["failure_rate"] = failure_rate
        if failure_rate_ci95 is not UNSET:
            field_dict["failure_rate_ci95"] = failure_rate_ci95
        if placebo is not UNSET:
            field_dict["placebo"] = placebo
        if reasoning_tokens is not UNSET:
            field_dict["reasoning_tokens"] = reasoning_tokens
        if tier is not UNSET:
            field_dict["tier"] = tier
        if tokens_in is not UNSET:
            field_dict["tokens_in"] = tokens_in
        if tokens_out is not UNSET:
            field_dict["tokens_out"] = tokens_out

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.call_counts_by_error_kind import CallCountsByErrorKind  # noqa: PLC0415

        d = dict(src_dict)
        by_error_kind = CallCountsByErrorKind.from_dict(d.pop("by_error_kind"))

        design = d.pop("design")

        failed = d.pop("failed")

        parsed = d.pop("parsed")

        ties = d.pop("ties")

        total = d.pop("total")

        def _parse_failure_rate(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        failure_rate = _parse_failure_rate(d.pop("failure_rate", UNSET))

        def _parse_failure_rate_ci95(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                failure_rate_ci95_type_0 = []
                _failure_rate_ci95_type_0 = data
                for failure_rate_ci95_type_0_item_data in _failure_rate_ci95_type_0:

                    def _parse_failure_rate_ci95_type_0_item(data: object) -> float:
                        return cast(float, data)

                    failure_rate_ci95_type_0_item = _parse_failure_rate_ci95_type_0_item(
                        failure_rate_ci95_type_0_item_data
                    )

                    failure_rate_ci95_type_0.append(failure_rate_ci95_type_0_item)

                return failure_rate_ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None | Unset, data)

        failure_rate_ci95 = _parse_failure_rate_ci95(d.pop("failure_rate_ci95", UNSET))

        placebo = d.pop("placebo", UNSET)

        reasoning_tokens = d.pop("reasoning_tokens", UNSET)

        _tier = d.pop("tier", UNSET)
        tier: CallCountsTier | Unset
        if isinstance(_tier, Unset):
            tier = UNSET
        else:
            tier = CallCountsTier(_tier)

        tokens_in = d.pop("tokens_in", UNSET)

        tokens_out = d.pop("tokens_out", UNSET)

        call_counts = cls(
            by_error_kind=by_error_kind,
            design=design,
            failed=failed,
            parsed=parsed,
            ties=ties,
            total=total,
            failure_rate=failure_rate,
            failure_rate_ci95=failure_rate_ci95,
            placebo=placebo,
            reasoning_tokens=reasoning_tokens,
            tier=tier,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
        )

        call_counts.additional_properties = d
        return call_counts

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
