from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.canary_judge_read import CanaryJudgeRead
    from ..models.canary_read_selector import CanaryReadSelector
    from ..models.canary_run_read import CanaryRunRead


T = TypeVar("T", bound="CanaryRead")


@_attrs_define
class CanaryRead:
    """A canary, and its latest run.

    Attributes:
        created_at (datetime.datetime):
        gold_count (int): items with a gold label (accuracy needs them)
        interval_s (float | None):
        item_count (int):
        judges (list[str]):
        last_run (CanaryRunRead | None):
        name (str):
        selector (CanaryReadSelector): how the items were chosen: `{tag, limit}`, or `{comparison_ids: <count>}`
        judge_states (list[CanaryJudgeRead] | Unset): per judge: its baseline and its drift flag
    """

    created_at: datetime.datetime
    gold_count: int
    interval_s: float | None
    item_count: int
    judges: list[str]
    last_run: CanaryRunRead | None
    name: str
    selector: CanaryReadSelector
    judge_states: list[CanaryJudgeRead] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.canary_run_read import CanaryRunRead  # noqa: PLC0415

        created_at = self.created_at.isoformat()

        gold_count = self.gold_count

        interval_s: float | None
        interval_s = self.interval_s

        item_count = self.item_count

        judges = self.judges

        last_run: dict[str, Any] | None
        if isinstance(self.last_run, CanaryRunRead):
            last_run = self.last_run.to_dict()
        else:
            last_run = self.last_run

        name = self.name

        selector = self.selector.to_dict()

        judge_states: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.judge_states, Unset):
            judge_states = []
            for judge_states_item_data in self.judge_states:
                judge_states_item = judge_states_item_data.to_dict()
                judge_states.append(judge_states_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "gold_count": gold_count,
                "interval_s": interval_s,
                "item_count": item_count,
                "judges": judges,
                "last_run": last_run,
                "name": name,
                "selector": selector,
            }
        )
        if judge_states is not UNSET:
            field_dict["judge_states"] = judge_states

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.canary_judge_read import CanaryJudgeRead  # noqa: PLC0415
        from ..models.canary_read_selector import CanaryReadSelector  # noqa: PLC0415
        from ..models.canary_run_read import CanaryRunRead  # noqa: PLC0415

        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        gold_count = d.pop("gold_count")

        def _parse_interval_s(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        interval_s = _parse_interval_s(d.pop("interval_s"))

        item_count = d.pop("item_count")

        judges = cast(list[str], d.pop("judges"))

        def _parse_last_run(data: object) -> CanaryRunRead | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                last_run_type_0 = CanaryRunRead.from_dict(data)

                return last_run_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CanaryRunRead | None, data)

        last_run = _parse_last_run(d.pop("last_run"))

        name = d.pop("name")

        selector = CanaryReadSelector.from_dict(d.pop("selector"))

        _judge_states = d.pop("judge_states", UNSET)
        judge_states: list[CanaryJudgeRead] | Unset = UNSET
        if _judge_states is not UNSET:
            judge_states = []
            for judge_states_item_data in _judge_states:
                judge_states_item = CanaryJudgeRead.from_dict(judge_states_item_data)

                judge_states.append(judge_states_item)

        canary_read = cls(
            created_at=created_at,
            gold_count=gold_count,
            interval_s=interval_s,
            item_count=item_count,
            judges=judges,
            last_run=last_run,
            name=name,
            selector=selector,
            judge_states=judge_states,
        )

        canary_read.additional_properties = d
        return canary_read

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
