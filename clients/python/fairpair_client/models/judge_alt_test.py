from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.judge_alt_test_reason_type_0 import JudgeAltTestReasonType0

if TYPE_CHECKING:
    from ..models.labeler_test_read import LabelerTestRead


T = TypeVar("T", bound="JudgeAltTest")


@_attrs_define
class JudgeAltTest:
    """The alternative-annotator test of one judge (null figures with a `reason`).

    Attributes:
        advantage_probability (float | None): mean judge_advantage: the chance it is as good as a random labeler;
            compares judges
        items (int): items with two or more queue labelers that it judged
        judge (str):
        labelers (list[LabelerTestRead]):
        passed (bool | None): winning_rate ≥ 0.5: it may replace a labeler
        reason (JudgeAltTestReasonType0 | None): `no_labels`: no item with two or more queue labelers that it judged;
            `too_few_labelers`: fewer than 3 labelers with 30 such items each
        winning_rate (float | None): share of labelers the judge wins against
    """

    advantage_probability: float | None
    items: int
    judge: str
    labelers: list[LabelerTestRead]
    passed: bool | None
    reason: JudgeAltTestReasonType0 | None
    winning_rate: float | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        advantage_probability: float | None
        advantage_probability = self.advantage_probability

        items = self.items

        judge = self.judge

        labelers = []
        for labelers_item_data in self.labelers:
            labelers_item = labelers_item_data.to_dict()
            labelers.append(labelers_item)

        passed: bool | None
        passed = self.passed

        reason: None | str
        if isinstance(self.reason, JudgeAltTestReasonType0):
            reason = self.reason.value
        else:
            reason = self.reason

        winning_rate: float | None
        winning_rate = self.winning_rate

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "advantage_probability": advantage_probability,
                "items": items,
                "judge": judge,
                "labelers": labelers,
                "passed": passed,
                "reason": reason,
                "winning_rate": winning_rate,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.labeler_test_read import LabelerTestRead  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_advantage_probability(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        advantage_probability = _parse_advantage_probability(d.pop("advantage_probability"))

        items = d.pop("items")

        judge = d.pop("judge")

        labelers = []
        _labelers = d.pop("labelers")
        for labelers_item_data in _labelers:
            labelers_item = LabelerTestRead.from_dict(labelers_item_data)

            labelers.append(labelers_item)

        def _parse_passed(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        passed = _parse_passed(d.pop("passed"))

        def _parse_reason(data: object) -> JudgeAltTestReasonType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_type_0 = JudgeAltTestReasonType0(data)

                return reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JudgeAltTestReasonType0 | None, data)

        reason = _parse_reason(d.pop("reason"))

        def _parse_winning_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        winning_rate = _parse_winning_rate(d.pop("winning_rate"))

        judge_alt_test = cls(
            advantage_probability=advantage_probability,
            items=items,
            judge=judge,
            labelers=labelers,
            passed=passed,
            reason=reason,
            winning_rate=winning_rate,
        )

        judge_alt_test.additional_properties = d
        return judge_alt_test

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
