from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.leaderboard_filters_read_origin import LeaderboardFiltersReadOrigin
from ..types import UNSET, Unset

T = TypeVar("T", bound="LeaderboardFiltersRead")


@_attrs_define
class LeaderboardFiltersRead:
    """The filters the leaderboard was computed with.

    Attributes:
        baseline (None | str):
        since (datetime.datetime | None):
        tags (list[str]):
        until (datetime.datetime | None):
        origin (LeaderboardFiltersReadOrigin | Unset): whose comparisons counted: `traffic`, `canary` or `all` Default:
            LeaderboardFiltersReadOrigin.TRAFFIC.
    """

    baseline: None | str
    since: datetime.datetime | None
    tags: list[str]
    until: datetime.datetime | None
    origin: LeaderboardFiltersReadOrigin | Unset = LeaderboardFiltersReadOrigin.TRAFFIC
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        baseline: None | str
        baseline = self.baseline

        since: None | str
        if isinstance(self.since, datetime.datetime):
            since = self.since.isoformat()
        else:
            since = self.since

        tags = self.tags

        until: None | str
        if isinstance(self.until, datetime.datetime):
            until = self.until.isoformat()
        else:
            until = self.until

        origin: str | Unset = UNSET
        if not isinstance(self.origin, Unset):
            origin = self.origin.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "baseline": baseline,
                "since": since,
                "tags": tags,
                "until": until,
            }
        )
        if origin is not UNSET:
            field_dict["origin"] = origin

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_baseline(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        baseline = _parse_baseline(d.pop("baseline"))

        def _parse_since(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                since_type_0 = datetime.datetime.fromisoformat(data)

                return since_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        since = _parse_since(d.pop("since"))

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

        _origin = d.pop("origin", UNSET)
        origin: LeaderboardFiltersReadOrigin | Unset
        if isinstance(_origin, Unset):
            origin = UNSET
        else:
            origin = LeaderboardFiltersReadOrigin(_origin)

        leaderboard_filters_read = cls(
            baseline=baseline,
            since=since,
            tags=tags,
            until=until,
            origin=origin,
        )

        leaderboard_filters_read.additional_properties = d
        return leaderboard_filters_read

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
