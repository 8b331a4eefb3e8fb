from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="BaselinePin")


@_attrs_define
class BaselinePin:
    """Pin a settled run as the baseline its judges' later runs are compared with.

    Attributes:
        run (int): the run's number
        judges (list[str] | None | Unset): default: the run's judges
    """

    run: int
    judges: list[str] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        run = self.run

        judges: list[str] | None | Unset
        if isinstance(self.judges, Unset):
            judges = UNSET
        elif isinstance(self.judges, list):
            judges = self.judges

        else:
            judges = self.judges

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "run": run,
            }
        )
        if judges is not UNSET:
            field_dict["judges"] = judges

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        run = d.pop("run")

        def _parse_judges(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                judges_type_0 = cast(list[str], data)

                return judges_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        judges = _parse_judges(d.pop("judges", UNSET))

        baseline_pin = cls(
            run=run,
            judges=judges,
        )

        return baseline_pin
