from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.canary_drift_read_trigger import CanaryDriftReadTrigger
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.rate_read import RateRead


T = TypeVar("T", bound="CanaryDriftRead")


@_attrs_define
class CanaryDriftRead:
    """A judge's latest settled run of one canary, as the bias report and the dashboard show it.

    Attributes:
        call_accuracy (RateRead): k of n, the rate and its 95% CI; both null when n = 0 or the tier is `insufficient`.
        canary (str):
        drift (bool | None): true from the run that flagged drift (against the previous run or the baseline) until an
            admin acknowledges it or pins a baseline; null while no run had another to compare with
        drifted (list[str]): the paired tests of this run that are significant
        finished_at (datetime.datetime):
        first_pick_rate (RateRead): k of n, the rate and its 95% CI; both null when n = 0 or the tier is `insufficient`.
        position_consistency (RateRead): k of n, the rate and its 95% CI; both null when n = 0 or the tier is
            `insufficient`.
        previous_run (int | None):
        run (int):
        trigger (CanaryDriftReadTrigger):
        baseline_pinned (bool | Unset): pinned by an admin Default: False.
        baseline_run (int | None | Unset): the judge's baseline run
        drift_since_run (int | None | Unset): the run that raised `drift`
        run_drift (bool | None | Unset): this run's own flag
    """

    call_accuracy: RateRead
    canary: str
    drift: bool | None
    drifted: list[str]
    finished_at: datetime.datetime
    first_pick_rate: RateRead
    position_consistency: RateRead
    previous_run: int | None
    run: int
    trigger: CanaryDriftReadTrigger
    baseline_pinned: bool | Unset = False
    baseline_run: int | None | Unset = UNSET
    drift_since_run: int | None | Unset = UNSET
    run_drift: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        call_accuracy = self.call_accuracy.to_dict()

        canary = self.canary

        drift: bool | None
        drift = self.drift

        drifted = self.drifted

        finished_at = self.finished_at.isoformat()

        first_pick_rate = self.first_pick_rate.to_dict()

        position_consistency = self.position_consistency.to_dict()

        previous_run: int | None
        previous_run = self.previous_run

        run = self.run

        trigger = self.trigger.value

        baseline_pinned = self.baseline_pinned

        baseline_run: int | None | Unset
        if isinstance(self.baseline_run, Unset):
            baseline_run = UNSET
        else:
            baseline_run = self.baseline_run

        drift_since_run: int | None | Unset
        if isinstance(self.drift_since_run, Unset):
            drift_since_run = UNSET
        else:
            drift_since_run = self.drift_since_run

        run_drift: bool | None | Unset
        if isinstance(self.run_drift, Unset):
            run_drift = UNSET
        else:
            run_drift = self.run_drift

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "call_accuracy": call_accuracy,
                "canary": canary,
                "drift": drift,
                "drifted": drifted,
                "finished_at": finished_at,
                "first_pick_rate": first_pick_rate,
                "position_consistency": position_consistency,
                "previous_run": previous_run,
                "run": run,
                "trigger": trigger,
            }
        )
        if baseline_pinned is not UNSET:
            field_dict["baseline_pinned"] = baseline_pinned
        if baseline_run is not UNSET:
            field_dict["baseline_run"] = baseline_run
        if drift_since_run is not UNSET:
            field_dict["drift_since_run"] = drift_since_run
        if run_drift is not UNSET:
            field_dict["run_drift"] = run_drift

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rate_read import RateRead  # noqa: PLC0415

        d = dict(src_dict)
        call_accuracy = RateRead.from_dict(d.pop("call_accuracy"))

        canary = d.pop("canary")

        def _parse_drift(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        drift = _parse_drift(d.pop("drift"))

        drifted = cast(list[str], d.pop("drifted"))

        finished_at = datetime.datetime.fromisoformat(d.pop("finished_at"))

        first_pick_rate = RateRead.from_dict(d.pop("first_pick_rate"))

        position_consistency = RateRead.from_dict(d.pop("position_consistency"))

        def _parse_previous_run(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        previous_run = _parse_previous_run(d.pop("previous_run"))

        run = d.pop("run")

        trigger = CanaryDriftReadTrigger(d.pop("trigger"))

        baseline_pinned = d.pop("baseline_pinned", UNSET)

        def _parse_baseline_run(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        baseline_run = _parse_baseline_run(d.pop("baseline_run", UNSET))

        def _parse_drift_since_run(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        drift_since_run = _parse_drift_since_run(d.pop("drift_since_run", UNSET))

        def _parse_run_drift(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        run_drift = _parse_run_drift(d.pop("run_drift", UNSET))

        canary_drift_read = cls(
            call_accuracy=call_accuracy,
            canary=canary,
            drift=drift,
            drifted=drifted,
            finished_at=finished_at,
            first_pick_rate=first_pick_rate,
            position_consistency=position_consistency,
            previous_run=previous_run,
            run=run,
            trigger=trigger,
            baseline_pinned=baseline_pinned,
            baseline_run=baseline_run,
            drift_since_run=drift_since_run,
            run_drift=run_drift,
        )

        canary_drift_read.additional_properties = d
        return canary_drift_read

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
