from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="CanaryJudgeRead")


@_attrs_define
class CanaryJudgeRead:
    """Where one judge of the canary stands: its baseline and its drift flag.

    Attributes:
        baseline_pinned (bool): pinned by an admin, not the version's first run
        baseline_run (int | None): the run later runs are also compared with
        drift (bool | None): true from the first run that flagged drift until an admin acknowledges it or pins a
            baseline; null while no run had another to compare with
        drift_since_run (int | None): the run that raised the flag
        judge (str):
        last_run (int | None): its latest settled run
    """

    baseline_pinned: bool
    baseline_run: int | None
    drift: bool | None
    drift_since_run: int | None
    judge: str
    last_run: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        baseline_pinned = self.baseline_pinned

        baseline_run: int | None
        baseline_run = self.baseline_run

        drift: bool | None
        drift = self.drift

        drift_since_run: int | None
        drift_since_run = self.drift_since_run

        judge = self.judge

        last_run: int | None
        last_run = self.last_run

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "baseline_pinned": baseline_pinned,
                "baseline_run": baseline_run,
                "drift": drift,
                "drift_since_run": drift_since_run,
                "judge": judge,
                "last_run": last_run,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        baseline_pinned = d.pop("baseline_pinned")

        def _parse_baseline_run(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        baseline_run = _parse_baseline_run(d.pop("baseline_run"))

        def _parse_drift(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        drift = _parse_drift(d.pop("drift"))

        def _parse_drift_since_run(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        drift_since_run = _parse_drift_since_run(d.pop("drift_since_run"))

        judge = d.pop("judge")

        def _parse_last_run(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        last_run = _parse_last_run(d.pop("last_run"))

        canary_judge_read = cls(
            baseline_pinned=baseline_pinned,
            baseline_run=baseline_run,
            drift=drift,
            drift_since_run=drift_since_run,
            judge=judge,
            last_run=last_run,
        )

        canary_judge_read.additional_properties = d
        return canary_judge_read

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
