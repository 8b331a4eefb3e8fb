from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.judge_left_out import JudgeLeftOut


T = TypeVar("T", bound="LeaveOneJudgeOut")


@_attrs_define
class LeaveOneJudgeOut:
    """Leave-one-judge-out rank agreement (STATISTICS.md, "Leaderboard: fragility").

    Attributes:
        judges (list[JudgeLeftOut]): one per judge that voted, by name
        min_kendall_tau (float | None): the lowest `kendall_tau` among them
        outcomes (int): the most recent outcomes refitted (up to 20,000 of the fitted ones)
        reason (Literal['single_judge'] | None): `single_judge`: fewer than two judges voted on the fitted outcomes
    """

    judges: list[JudgeLeftOut]
    min_kendall_tau: float | None
    outcomes: int
    reason: Literal["single_judge"] | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        judges = []
        for judges_item_data in self.judges:
            judges_item = judges_item_data.to_dict()
            judges.append(judges_item)

        min_kendall_tau: float | None
        min_kendall_tau = self.min_kendall_tau

        outcomes = self.outcomes

        reason: Literal["single_judge"] | None
        reason = self.reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "judges": judges,
                "min_kendall_tau": min_kendall_tau,
                "outcomes": outcomes,
                "reason": reason,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.judge_left_out import JudgeLeftOut  # noqa: PLC0415

        d = dict(src_dict)
        judges = []
        _judges = d.pop("judges")
        for judges_item_data in _judges:
            judges_item = JudgeLeftOut.from_dict(judges_item_data)

            judges.append(judges_item)

        def _parse_min_kendall_tau(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        min_kendall_tau = _parse_min_kendall_tau(d.pop("min_kendall_tau"))

        outcomes = d.pop("outcomes")

        def _parse_reason(data: object) -> Literal["single_judge"] | None:
            if data is None:
                return data
            reason_type_0 = cast(Literal["single_judge"], data)
            if reason_type_0 != "single_judge":
                raise ValueError(f"reason_type_0 must match const 'single_judge', got '{reason_type_0}'")
            return reason_type_0
            return cast(Literal["single_judge"] | None, data)

        reason = _parse_reason(d.pop("reason"))

        leave_one_judge_out = cls(
            judges=judges,
            min_kendall_tau=min_kendall_tau,
            outcomes=outcomes,
            reason=reason,
        )

        leave_one_judge_out.additional_properties = d
        return leave_one_judge_out

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
