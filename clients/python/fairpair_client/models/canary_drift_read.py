from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.canary_drift_read_trigger import CanaryDriftReadTrigger

if TYPE_CHECKING:
    from ..models.rate_read import RateRead


T = TypeVar("T", bound="CanaryDriftRead")


@_attrs_define
class CanaryDriftRead:
    """A judge's latest settled run of one canary, as the bias report and the dashboard show it.

    Attributes:
        call_accuracy (RateRead): k of n, the rate (null when n = 0) and its 95% CI.
        canary (str):
        drift (bool | None): null without a previous run to compare with
        drifted (list[str]): the paired tests that are significant
        finished_at (datetime.datetime):
        first_pick_rate (RateRead): k of n, the rate (null when n = 0) and its 95% CI.
        position_consistency (RateRead): k of n, the rate (null when n = 0) and its 95% CI.
        previous_run (int | None):
        run (int):
        trigger (CanaryDriftReadTrigger):
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
