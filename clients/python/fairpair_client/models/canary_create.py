from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="CanaryCreate")


@_attrs_define
class CanaryCreate:
    """A canary: its items chosen once, by ids or by a tag, and copied.

    Attributes:
        judges (list[str]): the judges it audits
        name (str):
        comparison_ids (list[str] | None | Unset): the stored comparisons to copy, in this order
        interval (None | str | Unset): run on a schedule, every interval (an age like 7d, 12h or 30m); runs also start
            when a judge's version or provider-reported model changes
        limit (int | Unset): with `tag`: how many comparisons at most Default: 200.
        tag (None | str | Unset): `key:value`: copy the newest `limit` finished traffic comparisons with it
    """

    judges: list[str]
    name: str
    comparison_ids: list[str] | None | Unset = UNSET
    interval: None | str | Unset = UNSET
    limit: int | Unset = 200
    tag: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        judges = self.judges

        name = self.name

        comparison_ids: list[str] | None | Unset
        if isinstance(self.comparison_ids, Unset):
            comparison_ids = UNSET
        elif isinstance(self.comparison_ids, list):
            comparison_ids = self.comparison_ids

        else:
            comparison_ids = self.comparison_ids

        interval: None | str | Unset
        if isinstance(self.interval, Unset):
            interval = UNSET
        else:
            interval = self.interval

        limit = self.limit

        tag: None | str | Unset
        if isinstance(self.tag, Unset):
            tag = UNSET
        else:
            tag = self.tag

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "judges": judges,
                "name": name,
            }
        )
        if comparison_ids is not UNSET:
            field_dict["comparison_ids"] = comparison_ids
        if interval is not UNSET:
            field_dict["interval"] = interval
        if limit is not UNSET:
            field_dict["limit"] = limit
        if tag is not UNSET:
            field_dict["tag"] = tag

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        judges = cast(list[str], d.pop("judges"))

        name = d.pop("name")

        def _parse_comparison_ids(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                comparison_ids_type_0 = cast(list[str], data)

                return comparison_ids_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        comparison_ids = _parse_comparison_ids(d.pop("comparison_ids", UNSET))

        def _parse_interval(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        interval = _parse_interval(d.pop("interval", UNSET))

        limit = d.pop("limit", UNSET)

        def _parse_tag(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tag = _parse_tag(d.pop("tag", UNSET))

        canary_create = cls(
            judges=judges,
            name=name,
            comparison_ids=comparison_ids,
            interval=interval,
            limit=limit,
            tag=tag,
        )

        return canary_create
