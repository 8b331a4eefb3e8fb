from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="AnchoredBaselineWinRate")


@_attrs_define
class AnchoredBaselineWinRate:
    """The win rate against the baseline anchored by human labels (PPI++, docs/STATISTICS.md
    "Leaderboard: anchored win rate"), in percent like `vs_baseline`.

        Attributes:
            ci95 (list[float]): CLT interval, clipped to 0-100
            lambda_ (float): power-tuned weight of the judge, in [0, 1]
            n (int): direct comparisons with the baseline (labelled and not)
            n_labelled (int): of which with a gold label from the random queue
            win_rate (float): PPI++ estimate of the human win rate, clipped to 0-100
            method (Literal['ppi++'] | Unset):  Default: 'ppi++'.
            sampling (Literal['uniform_queue'] | Unset): only labels drawn from the random labeling queue correct the
                estimate Default: 'uniform_queue'.
    """

    ci95: list[float]
    lambda_: float
    n: int
    n_labelled: int
    win_rate: float
    method: Literal["ppi++"] | Unset = "ppi++"
    sampling: Literal["uniform_queue"] | Unset = "uniform_queue"
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        ci95 = []
        for ci95_item_data in self.ci95:
            ci95_item: float
            ci95_item = ci95_item_data
            ci95.append(ci95_item)

        lambda_ = self.lambda_

        n = self.n

        n_labelled = self.n_labelled

        win_rate = self.win_rate

        method = self.method

        sampling = self.sampling

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ci95": ci95,
                "lambda": lambda_,
                "n": n,
                "n_labelled": n_labelled,
                "win_rate": win_rate,
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
        ci95 = []
        _ci95 = d.pop("ci95")
        for ci95_item_data in _ci95:

            def _parse_ci95_item(data: object) -> float:
                return cast(float, data)

            ci95_item = _parse_ci95_item(ci95_item_data)

            ci95.append(ci95_item)

        lambda_ = d.pop("lambda")

        n = d.pop("n")

        n_labelled = d.pop("n_labelled")

        win_rate = d.pop("win_rate")

        method = cast(Literal["ppi++"] | Unset, d.pop("method", UNSET))
        if method != "ppi++" and not isinstance(method, Unset):
            raise ValueError(f"method must match const 'ppi++', got '{method}'")

        sampling = cast(Literal["uniform_queue"] | Unset, d.pop("sampling", UNSET))
        if sampling != "uniform_queue" and not isinstance(sampling, Unset):
            raise ValueError(f"sampling must match const 'uniform_queue', got '{sampling}'")

        anchored_baseline_win_rate = cls(
            ci95=ci95,
            lambda_=lambda_,
            n=n,
            n_labelled=n_labelled,
            win_rate=win_rate,
            method=method,
            sampling=sampling,
        )

        anchored_baseline_win_rate.additional_properties = d
        return anchored_baseline_win_rate

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
