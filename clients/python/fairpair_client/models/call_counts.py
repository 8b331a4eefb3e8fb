from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.call_counts_by_error_kind import CallCountsByErrorKind


T = TypeVar("T", bound="CallCounts")


@_attrs_define
class CallCounts:
    """Every call of the judge (all rounds), placebo comparisons excluded.

    Attributes:
        by_error_kind (CallCountsByErrorKind):
        design (int):
        failed (int):
        parsed (int):
        ties (int):
        total (int):
    """

    by_error_kind: CallCountsByErrorKind
    design: int
    failed: int
    parsed: int
    ties: int
    total: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        by_error_kind = self.by_error_kind.to_dict()

        design = self.design

        failed = self.failed

        parsed = self.parsed

        ties = self.ties

        total = self.total

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "by_error_kind": by_error_kind,
                "design": design,
                "failed": failed,
                "parsed": parsed,
                "ties": ties,
                "total": total,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.call_counts_by_error_kind import CallCountsByErrorKind  # noqa: PLC0415

        d = dict(src_dict)
        by_error_kind = CallCountsByErrorKind.from_dict(d.pop("by_error_kind"))

        design = d.pop("design")

        failed = d.pop("failed")

        parsed = d.pop("parsed")

        ties = d.pop("ties")

        total = d.pop("total")

        call_counts = cls(
            by_error_kind=by_error_kind,
            design=design,
            failed=failed,
            parsed=parsed,
            ties=ties,
            total=total,
        )

        call_counts.additional_properties = d
        return call_counts

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
