from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="CardRunStarted")


@_attrs_define
class CardRunStarted:
    """A battery run that was queued: what it will cost, and how to find its card.

    Attributes:
        batch_id (str):
        calls (int):
        items (int):
        judge (str):
        run_id (str):
        stated_cost_usd (float | None): the run's estimated price at the judge's prices; null when it has none (unknown,
            not free)
        version (int):
    """

    batch_id: str
    calls: int
    items: int
    judge: str
    run_id: str
    stated_cost_usd: float | None
    version: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        batch_id = self.batch_id

        calls = self.calls

        items = self.items

        judge = self.judge

        run_id = self.run_id

        stated_cost_usd: float | None
        stated_cost_usd = self.stated_cost_usd

        version = self.version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "batch_id": batch_id,
                "calls": calls,
                "items": items,
                "judge": judge,
                "run_id": run_id,
                "stated_cost_usd": stated_cost_usd,
                "version": version,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        batch_id = d.pop("batch_id")

        calls = d.pop("calls")

        items = d.pop("items")

        judge = d.pop("judge")

        run_id = d.pop("run_id")

        def _parse_stated_cost_usd(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        stated_cost_usd = _parse_stated_cost_usd(d.pop("stated_cost_usd"))

        version = d.pop("version")

        card_run_started = cls(
            batch_id=batch_id,
            calls=calls,
            items=items,
            judge=judge,
            run_id=run_id,
            stated_cost_usd=stated_cost_usd,
            version=version,
        )

        card_run_started.additional_properties = d
        return card_run_started

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
