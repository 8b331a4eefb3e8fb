from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.anchored_ratings_reason_type_0 import AnchoredRatingsReasonType0
from ..types import UNSET, Unset

T = TypeVar("T", bound="AnchoredRatings")


@_attrs_define
class AnchoredRatings:
    """The human-anchored Bradley-Terry fit beside the judge-only one (docs/STATISTICS.md
    "Leaderboard: anchored ratings").

        Attributes:
            lambda_ (float | None): power-tuned weight of the judge
            n (int): comparisons between rated models (every one in scope)
            n_labelled (int): of which with a gold label from the random queue
            reason (AnchoredRatingsReasonType0 | None): why the ratings are null
            method (Literal['ppi++'] | Unset):  Default: 'ppi++'.
            sampling (Literal['uniform_queue'] | Unset):  Default: 'uniform_queue'.
    """

    lambda_: float | None
    n: int
    n_labelled: int
    reason: AnchoredRatingsReasonType0 | None
    method: Literal["ppi++"] | Unset = "ppi++"
    sampling: Literal["uniform_queue"] | Unset = "uniform_queue"
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        lambda_: float | None
        lambda_ = self.lambda_

        n = self.n

        n_labelled = self.n_labelled

        reason: None | str
        if isinstance(self.reason, AnchoredRatingsReasonType0):
            reason = self.reason.value
        else:
            reason = self.reason

        method = self.method

        sampling = self.sampling

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "lambda": lambda_,
                "n": n,
                "n_labelled": n_labelled,
                "reason": reason,
            }
        )
        if method is not UNSET:
            field_dict["method"] = method
        if sampling is not UNSET:
            field_dict["sampling"] = sampling

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_lambda_(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        lambda_ = _parse_lambda_(d.pop("lambda"))

        n = d.pop("n")

        n_labelled = d.pop("n_labelled")

        def _parse_reason(data: object) -> AnchoredRatingsReasonType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_type_0 = AnchoredRatingsReasonType0(data)

                return reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AnchoredRatingsReasonType0 | None, data)

        reason = _parse_reason(d.pop("reason"))

        method = cast(Literal["ppi++"] | Unset, d.pop("method", UNSET))
        if method != "ppi++" and not isinstance(method, Unset):
            raise ValueError(f"method must match const 'ppi++', got '{method}'")

        sampling = cast(Literal["uniform_queue"] | Unset, d.pop("sampling", UNSET))
        if sampling != "uniform_queue" and not isinstance(sampling, Unset):
            raise ValueError(f"sampling must match const 'uniform_queue', got '{sampling}'")

        anchored_ratings = cls(
            lambda_=lambda_,
            n=n,
            n_labelled=n_labelled,
            reason=reason,
            method=method,
            sampling=sampling,
        )

        anchored_ratings.additional_properties = d
        return anchored_ratings

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
