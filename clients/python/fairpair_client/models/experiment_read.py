from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.experiment_read_decision_type_0 import ExperimentReadDecisionType0
from ..models.experiment_read_status import ExperimentReadStatus

if TYPE_CHECKING:
    from ..models.experiment_win_rate import ExperimentWinRate


T = TypeVar("T", bound="ExperimentRead")


@_attrs_define
class ExperimentRead:
    """Where an experiment stands.

    Attributes:
        alpha (float):
        baseline (str):
        batch_id (None | str):
        calls (int):
        calls_saved (int | None): the calls the items left would have cost, at the calls per judged item
        candidate (str):
        comparisons (int):
        created_at (datetime.datetime):
        decided_after (int | None): the comparisons the decision rested on
        decided_at (datetime.datetime | None):
        decision (ExperimentReadDecisionType0 | None):
        items (int | None): item experiments: the items submitted
        items_judged (int | None):
        items_left (int | None): items not judged (skipped once decided)
        margin (float):
        name (str):
        status (ExperimentReadStatus):
        win_rate (ExperimentWinRate | None): the candidate's win rate and its intervals; null before a comparison
    """

    alpha: float
    baseline: str
    batch_id: None | str
    calls: int
    calls_saved: int | None
    candidate: str
    comparisons: int
    created_at: datetime.datetime
    decided_after: int | None
    decided_at: datetime.datetime | None
    decision: ExperimentReadDecisionType0 | None
    items: int | None
    items_judged: int | None
    items_left: int | None
    margin: float
    name: str
    status: ExperimentReadStatus
    win_rate: ExperimentWinRate | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.experiment_win_rate import ExperimentWinRate  # noqa: PLC0415

        alpha = self.alpha

        baseline = self.baseline

        batch_id: None | str
        batch_id = self.batch_id

        calls = self.calls

        calls_saved: int | None
        calls_saved = self.calls_saved

        candidate = self.candidate

        comparisons = self.comparisons

        created_at = self.created_at.isoformat()

        decided_after: int | None
        decided_after = self.decided_after

        decided_at: None | str
        if isinstance(self.decided_at, datetime.datetime):
            decided_at = self.decided_at.isoformat()
        else:
            decided_at = self.decided_at

        decision: None | str
        if isinstance(self.decision, ExperimentReadDecisionType0):
            decision = self.decision.value
        else:
            decision = self.decision

        items: int | None
        items = self.items

        items_judged: int | None
        items_judged = self.items_judged

        items_left: int | None
        items_left = self.items_left

        margin = self.margin

        name = self.name

        status = self.status.value

        win_rate: dict[str, Any] | None
        if isinstance(self.win_rate, ExperimentWinRate):
            win_rate = self.win_rate.to_dict()
        else:
            win_rate = self.win_rate

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "alpha": alpha,
                "baseline": baseline,
                "batch_id": batch_id,
                "calls": calls,
                "calls_saved": calls_saved,
                "candidate": candidate,
                "comparisons": comparisons,
                "created_at": created_at,
                "decided_after": decided_after,
                "decided_at": decided_at,
                "decision": decision,
                "items": items,
                "items_judged": items_judged,
                "items_left": items_left,
                "margin": margin,
                "name": name,
                "status": status,
                "win_rate": win_rate,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.experiment_win_rate import ExperimentWinRate  # noqa: PLC0415

        d = dict(src_dict)
        alpha = d.pop("alpha")

        baseline = d.pop("baseline")

        def _parse_batch_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        batch_id = _parse_batch_id(d.pop("batch_id"))

        calls = d.pop("calls")

        def _parse_calls_saved(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        calls_saved = _parse_calls_saved(d.pop("calls_saved"))

        candidate = d.pop("candidate")

        comparisons = d.pop("comparisons")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_decided_after(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        decided_after = _parse_decided_after(d.pop("decided_after"))

        def _parse_decided_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                decided_at_type_0 = datetime.datetime.fromisoformat(data)

                return decided_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        decided_at = _parse_decided_at(d.pop("decided_at"))

        def _parse_decision(data: object) -> ExperimentReadDecisionType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                decision_type_0 = ExperimentReadDecisionType0(data)

                return decision_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ExperimentReadDecisionType0 | None, data)

        decision = _parse_decision(d.pop("decision"))

        def _parse_items(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        items = _parse_items(d.pop("items"))

        def _parse_items_judged(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        items_judged = _parse_items_judged(d.pop("items_judged"))

        def _parse_items_left(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        items_left = _parse_items_left(d.pop("items_left"))

        margin = d.pop("margin")

        name = d.pop("name")

        status = ExperimentReadStatus(d.pop("status"))

        def _parse_win_rate(data: object) -> ExperimentWinRate | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                win_rate_type_0 = ExperimentWinRate.from_dict(data)

                return win_rate_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ExperimentWinRate | None, data)

        win_rate = _parse_win_rate(d.pop("win_rate"))

        experiment_read = cls(
            alpha=alpha,
            baseline=baseline,
            batch_id=batch_id,
            calls=calls,
            calls_saved=calls_saved,
            candidate=candidate,
            comparisons=comparisons,
            created_at=created_at,
            decided_after=decided_after,
            decided_at=decided_at,
            decision=decision,
            items=items,
            items_judged=items_judged,
            items_left=items_left,
            margin=margin,
            name=name,
            status=status,
            win_rate=win_rate,
        )

        experiment_read.additional_properties = d
        return experiment_read

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
