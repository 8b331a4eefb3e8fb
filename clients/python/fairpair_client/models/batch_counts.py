from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="BatchCounts")


@_attrs_define
class BatchCounts:
    """Items by status.

    Attributes:
        cancelled (int | Unset):  Default: 0.
        completed (int | Unset):  Default: 0.
        failed (int | Unset):  Default: 0.
        queued (int | Unset):  Default: 0.
        running (int | Unset):  Default: 0.
        waiting (int | Unset): items whose calls are at a provider's batch job Default: 0.
    """

    cancelled: int | Unset = 0
    completed: int | Unset = 0
    failed: int | Unset = 0
    queued: int | Unset = 0
    running: int | Unset = 0
    waiting: int | Unset = 0
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cancelled = self.cancelled

        completed = self.completed

        failed = self.failed

        queued = self.queued

        running = self.running

        waiting = self.waiting

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if cancelled is not UNSET:
            field_dict["cancelled"] = cancelled
        if completed is not UNSET:
            field_dict["completed"] = completed
        if failed is not UNSET:
            field_dict["failed"] = failed
        if queued is not UNSET:
            field_dict["queued"] = queued
        if running is not UNSET:
            field_dict["running"] = running
        if waiting is not UNSET:
            field_dict["waiting"] = waiting

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cancelled = d.pop("cancelled", UNSET)

        completed = d.pop("completed", UNSET)

        failed = d.pop("failed", UNSET)

        queued = d.pop("queued", UNSET)

        running = d.pop("running", UNSET)

        waiting = d.pop("waiting", UNSET)

        batch_counts = cls(
            cancelled=cancelled,
            completed=completed,
            failed=failed,
            queued=queued,
            running=running,
            waiting=waiting,
        )

        batch_counts.additional_properties = d
        return batch_counts

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
