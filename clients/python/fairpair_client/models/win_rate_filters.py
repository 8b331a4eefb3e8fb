from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.win_rate_filters_origin import WinRateFiltersOrigin

T = TypeVar("T", bound="WinRateFilters")


@_attrs_define
class WinRateFilters:
    """The filters the answer was computed with, defaults filled in (the report's parser).

    Attributes:
        judge (None | str):
        origin (WinRateFiltersOrigin):
        since (datetime.datetime):
        tags (list[str]):
        until (datetime.datetime | None):
    """

    judge: None | str
    origin: WinRateFiltersOrigin
    since: datetime.datetime
    tags: list[str]
    until: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        judge: None | str
        judge = self.judge

        origin = self.origin.value

        since = self.since.isoformat()

        tags = self.tags

        until: None | str
        if isinstance(self.until, datetime.datetime):
            until = self.until.isoformat()
        else:
            until = self.until

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "judge": judge,
                "origin": origin,
                "since": since,
                "tags": tags,
                "until": until,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_judge(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        judge = _parse_judge(d.pop("judge"))

        origin = WinRateFiltersOrigin(d.pop("origin"))

        since = datetime.datetime.fromisoformat(d.pop("since"))

        tags = cast(list[str], d.pop("tags"))

        def _parse_until(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                until_type_0 = datetime.datetime.fromisoformat(data)

                return until_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        until = _parse_until(d.pop("until"))

        win_rate_filters = cls(
            judge=judge,
            origin=origin,
            since=since,
            tags=tags,
            until=until,
        )

        win_rate_filters.additional_properties = d
        return win_rate_filters

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
