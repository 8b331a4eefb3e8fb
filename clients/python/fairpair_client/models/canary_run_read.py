from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.canary_run_read_status import CanaryRunReadStatus
from ..models.canary_run_read_trigger import CanaryRunReadTrigger

if TYPE_CHECKING:
    from ..models.judge_run_read import JudgeRunRead


T = TypeVar("T", bound="CanaryRunRead")


@_attrs_define
class CanaryRunRead:
    """One run: a batch of `canary` comparisons, and per judge its figures once it finished.

    Attributes:
        batch_id (str): follow it with GET /v1/batches/{id}
        created_at (datetime.datetime):
        finished_at (datetime.datetime | None):
        judges (list[str]):
        number (int):
        results (list[JudgeRunRead]): per judge; empty while running
        status (CanaryRunReadStatus):
        trigger (CanaryRunReadTrigger):
    """

    batch_id: str
    created_at: datetime.datetime
    finished_at: datetime.datetime | None
    judges: list[str]
    number: int
    results: list[JudgeRunRead]
    status: CanaryRunReadStatus
    trigger: CanaryRunReadTrigger
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        batch_id = self.batch_id

        created_at = self.created_at.isoformat()

        finished_at: None | str
        if isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        judges = self.judges

        number = self.number

        results = []
        for results_item_data in self.results:
            results_item = results_item_data.to_dict()
            results.append(results_item)

        status = self.status.value

        trigger = self.trigger.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "batch_id": batch_id,
                "created_at": created_at,
                "finished_at": finished_at,
                "judges": judges,
                "number": number,
                "results": results,
                "status": status,
                "trigger": trigger,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.judge_run_read import JudgeRunRead  # noqa: PLC0415

        d = dict(src_dict)
        batch_id = d.pop("batch_id")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_finished_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = datetime.datetime.fromisoformat(data)

                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        finished_at = _parse_finished_at(d.pop("finished_at"))

        judges = cast(list[str], d.pop("judges"))

        number = d.pop("number")

        results = []
        _results = d.pop("results")
        for results_item_data in _results:
            results_item = JudgeRunRead.from_dict(results_item_data)

            results.append(results_item)

        status = CanaryRunReadStatus(d.pop("status"))

        trigger = CanaryRunReadTrigger(d.pop("trigger"))

        canary_run_read = cls(
            batch_id=batch_id,
            created_at=created_at,
            finished_at=finished_at,
            judges=judges,
            number=number,
            results=results,
            status=status,
            trigger=trigger,
        )

        canary_run_read.additional_properties = d
        return canary_run_read

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
