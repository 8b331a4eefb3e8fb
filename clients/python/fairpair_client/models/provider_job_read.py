from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ProviderJobRead")


@_attrs_define
class ProviderJobRead:
    """One job at a provider's batch API holding some of the batch's calls of one judge.

    Attributes:
        ended_at (datetime.datetime | None):
        expires_at (datetime.datetime | None):
        failed (int):
        id (None | str): the provider's batch id (none while being submitted)
        judge (str):
        provider (str):
        provider_state (None | str): the provider's own word for it
        requests (int):
        state (str): `submitting`, `unclear` (the submission's outcome is unknown: being looked up), `running`, `ended`
            (its results are stored as calls), `failed` (failed whole by the provider: its requests are submitted once more)
            or `abandoned` (no job was found after an unclear submission: its requests are sent again, at most 3 times)
        submitted_at (datetime.datetime | None):
        succeeded (int):
    """

    ended_at: datetime.datetime | None
    expires_at: datetime.datetime | None
    failed: int
    id: None | str
    judge: str
    provider: str
    provider_state: None | str
    requests: int
    state: str
    submitted_at: datetime.datetime | None
    succeeded: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        ended_at: None | str
        if isinstance(self.ended_at, datetime.datetime):
            ended_at = self.ended_at.isoformat()
        else:
            ended_at = self.ended_at

        expires_at: None | str
        if isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        failed = self.failed

        id: None | str
        id = self.id

        judge = self.judge

        provider = self.provider

        provider_state: None | str
        provider_state = self.provider_state

        requests = self.requests

        state = self.state

        submitted_at: None | str
        if isinstance(self.submitted_at, datetime.datetime):
            submitted_at = self.submitted_at.isoformat()
        else:
            submitted_at = self.submitted_at

        succeeded = self.succeeded

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ended_at": ended_at,
                "expires_at": expires_at,
                "failed": failed,
                "id": id,
                "judge": judge,
                "provider": provider,
                "provider_state": provider_state,
                "requests": requests,
                "state": state,
                "submitted_at": submitted_at,
                "succeeded": succeeded,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_ended_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                ended_at_type_0 = datetime.datetime.fromisoformat(data)

                return ended_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        ended_at = _parse_ended_at(d.pop("ended_at"))

        def _parse_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        expires_at = _parse_expires_at(d.pop("expires_at"))

        failed = d.pop("failed")

        def _parse_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        id = _parse_id(d.pop("id"))

        judge = d.pop("judge")

        provider = d.pop("provider")

        def _parse_provider_state(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        provider_state = _parse_provider_state(d.pop("provider_state"))

        requests = d.pop("requests")

        state = d.pop("state")

        def _parse_submitted_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                submitted_at_type_0 = datetime.datetime.fromisoformat(data)

                return submitted_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        submitted_at = _parse_submitted_at(d.pop("submitted_at"))

        succeeded = d.pop("succeeded")

        provider_job_read = cls(
            ended_at=ended_at,
            expires_at=expires_at,
            failed=failed,
            id=id,
            judge=judge,
            provider=provider,
            provider_state=provider_state,
            requests=requests,
            state=state,
            submitted_at=submitted_at,
            succeeded=succeeded,
        )

        provider_job_read.additional_properties = d
        return provider_job_read

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
