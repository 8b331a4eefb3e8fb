from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.rate_read import RateRead


T = TypeVar("T", bound="RunFiguresRead")


@_attrs_define
class RunFiguresRead:
    """One judge's figures on the canary's items in one run.

    Attributes:
        call_accuracy (RateRead): k of n, the rate and its 95% CI; both null when n = 0 or the tier is `insufficient`.
        first_pick_rate (RateRead): k of n, the rate and its 95% CI; both null when n = 0 or the tier is `insufficient`.
        n_items (int): canary items the judge was asked about
        n_labelled_items (int): gold items with at least one parsed design call
        position_consistency (RateRead): k of n, the rate and its 95% CI; both null when n = 0 or the tier is
            `insufficient`.
        verdict_accuracy (RateRead): k of n, the rate and its 95% CI; both null when n = 0 or the tier is
            `insufficient`.
    """

    call_accuracy: RateRead
    first_pick_rate: RateRead
    n_items: int
    n_labelled_items: int
    position_consistency: RateRead
    verdict_accuracy: RateRead
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        call_accuracy = self.call_accuracy.to_dict()

        first_pick_rate = self.first_pick_rate.to_dict()

        n_items = self.n_items

        n_labelled_items = self.n_labelled_items

        position_consistency = self.position_consistency.to_dict()

        verdict_accuracy = self.verdict_accuracy.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "call_accuracy": call_accuracy,
                "first_pick_rate": first_pick_rate,
                "n_items": n_items,
                "n_labelled_items": n_labelled_items,
                "position_consistency": position_consistency,
                "verdict_accuracy": verdict_accuracy,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rate_read import RateRead  # noqa: PLC0415

        d = dict(src_dict)
        call_accuracy = RateRead.from_dict(d.pop("call_accuracy"))

        first_pick_rate = RateRead.from_dict(d.pop("first_pick_rate"))

        n_items = d.pop("n_items")

        n_labelled_items = d.pop("n_labelled_items")

        position_consistency = RateRead.from_dict(d.pop("position_consistency"))

        verdict_accuracy = RateRead.from_dict(d.pop("verdict_accuracy"))

        run_figures_read = cls(
            call_accuracy=call_accuracy,
            first_pick_rate=first_pick_rate,
            n_items=n_items,
            n_labelled_items=n_labelled_items,
            position_consistency=position_consistency,
            verdict_accuracy=verdict_accuracy,
        )

        run_figures_read.additional_properties = d
        return run_figures_read

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
