from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.judge_entry_role import JudgeEntryRole

if TYPE_CHECKING:
    from ..models.call_read import CallRead
    from ..models.judge_result_read import JudgeResultRead


T = TypeVar("T", bound="JudgeEntry")


@_attrs_define
class JudgeEntry:
    """One judge of the panel: its role, result and calls.

    Attributes:
        calls (list[CallRead]):
        judge (str):
        result (JudgeResultRead | None):
        role (JudgeEntryRole):
        version (int):
    """

    calls: list[CallRead]
    judge: str
    result: JudgeResultRead | None
    role: JudgeEntryRole
    version: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.judge_result_read import JudgeResultRead  # noqa: PLC0415

        calls = []
        for calls_item_data in self.calls:
            calls_item = calls_item_data.to_dict()
            calls.append(calls_item)

        judge = self.judge

        result: dict[str, Any] | None
        if isinstance(self.result, JudgeResultRead):
            result = self.result.to_dict()
        else:
            result = self.result

        role = self.role.value

        version = self.version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "calls": calls,
                "judge": judge,
                "result": result,
                "role": role,
                "version": version,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.call_read import CallRead  # noqa: PLC0415
        from ..models.judge_result_read import JudgeResultRead  # noqa: PLC0415

        d = dict(src_dict)
        calls = []
        _calls = d.pop("calls")
        for calls_item_data in _calls:
            calls_item = CallRead.from_dict(calls_item_data)

            calls.append(calls_item)

        judge = d.pop("judge")

        def _parse_result(data: object) -> JudgeResultRead | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                result_type_0 = JudgeResultRead.from_dict(data)

                return result_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JudgeResultRead | None, data)

        result = _parse_result(d.pop("result"))

        role = JudgeEntryRole(d.pop("role"))

        version = d.pop("version")

        judge_entry = cls(
            calls=calls,
            judge=judge,
            result=result,
            role=role,
            version=version,
        )

        judge_entry.additional_properties = d
        return judge_entry

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
