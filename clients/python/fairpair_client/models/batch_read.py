from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.batch_read_mode import BatchReadMode
from ..models.batch_read_status import BatchReadStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.batch_counts import BatchCounts
    from ..models.provider_job_read import ProviderJobRead


T = TypeVar("T", bound="BatchRead")


@_attrs_define
class BatchRead:
    """A batch's progress: status, counts, times and the judge cost so far.

    Attributes:
        calls (int): judge calls stored so far
        cancelled_at (datetime.datetime | None):
        cost_usd (float): cost of the priced judge calls stored so far
        counts (BatchCounts): Items by status.
        created_at (datetime.datetime):
        finished_at (datetime.datetime | None):
        id (str):
        progress (float): share of items finished (completed, failed or cancelled)
        started_at (datetime.datetime | None):
        status (BatchReadStatus):
        total (int):
        hint (None | str | Unset): what to do when nothing will run the items
        mode (BatchReadMode | Unset):  Default: BatchReadMode.LIVE.
        provider_jobs (list[ProviderJobRead] | Unset): provider mode: the jobs at the providers' batch APIs
        rate_limited_until (datetime.datetime | None | Unset): while items are left: until when some of them wait on a
            rate limit (a judge's `rpm`, or a provider's 429 and its Retry-After), so a wait does not look like a hang; null
            when none waits or it cannot tell
        unpriced_calls (int | Unset): answered calls whose judge has no prices (cost unknown, not in cost_usd) Default:
            0.
        workers (int | None | Unset): while items are left: the processes running items now (`fairpair worker`s with
            Redis; the API process itself without); null when finished or it cannot tell
    """

    calls: int
    cancelled_at: datetime.datetime | None
    cost_usd: float
    counts: BatchCounts
    created_at: datetime.datetime
    finished_at: datetime.datetime | None
    id: str
    progress: float
    started_at: datetime.datetime | None
    status: BatchReadStatus
    total: int
    hint: None | str | Unset = UNSET
    mode: BatchReadMode | Unset = BatchReadMode.LIVE
    provider_jobs: list[ProviderJobRead] | Unset = UNSET
    rate_limited_until: datetime.datetime | None | Unset = UNSET
    unpriced_calls: int | Unset = 0
    workers: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        calls = self.calls

        cancelled_at: None | str
        if isinstance(self.cancelled_at, datetime.datetime):
            cancelled_at = self.cancelled_at.isoformat()
        else:
            cancelled_at = self.cancelled_at

        cost_usd = self.cost_usd

        counts = self.counts.to_dict()

        created_at = self.created_at.isoformat()

        finished_at: None | str
        if isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        id = self.id

        progress = self.progress

        started_at: None | str
        if isinstance(self.started_at, datetime.datetime):
            started_at = self.started_at.isoformat()
        else:
            started_at = self.started_at

        status = self.status.value

        total = self.total

        hint: None | str | Unset
        if isinstance(self.hint, Unset):
            hint = UNSET
        else:
            hint = self.hint

        mode: str | Unset = UNSET
        if not isinstance(self.mode, Unset):
            mode = self.mode.value

        provider_jobs: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.provider_jobs, Unset):
            provider_jobs = []
            for provider_jobs_item_data in self.provider_jobs:
                provider_jobs_item = provider_jobs_item_data.to_dict()
                provider_jobs.append(provider_jobs_item)

        rate_limited_until: None | str | Unset
        if isinstance(self.rate_limited_until, Unset):
            rate_limited_until = UNSET
        elif isinstance(self.rate_limited_until, datetime.datetime):
            rate_limited_until = self.rate_limited_until.isoformat()
        else:
            rate_limited_until = self.rate_limited_until

        unpriced_calls = self.unpriced_calls

        workers: int | None | Unset
        if isinstance(self.workers, Unset):
            workers = UNSET
        else:
            workers = self.workers

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "calls": calls,
                "cancelled_at": cancelled_at,
                "cost_usd": cost_usd,
                "counts": counts,
                "created_at": created_at,
                "finished_at": finished_at,
                "id": id,
                "progress": progress,
                "started_at": started_at,
                "status": status,
                "total": total,
            }
        )
        if hint is not UNSET:
            field_dict["hint"] = hint
        if mode is not UNSET:
            field_dict["mode"] = mode
        if provider_jobs is not UNSET:
            field_dict["provider_jobs"] = provider_jobs
        if rate_limited_until is not UNSET:
            field_dict["rate_limited_until"] = rate_limited_until
        if unpriced_calls is not UNSET:
            field_dict["unpriced_calls"] = unpriced_calls
        if workers is not UNSET:
            field_dict["workers"] = workers

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.batch_counts import BatchCounts  # noqa: PLC0415
        from ..models.provider_job_read import ProviderJobRead  # noqa: PLC0415

        d = dict(src_dict)
        calls = d.pop("calls")

        def _parse_cancelled_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                cancelled_at_type_0 = datetime.datetime.fromisoformat(data)

                return cancelled_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        cancelled_at = _parse_cancelled_at(d.pop("cancelled_at"))

        cost_usd = d.pop("cost_usd")

        counts = BatchCounts.from_dict(d.pop("counts"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_finished_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = datetime.datetime.fromisoformat(data)

                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        finished_at = _parse_finished_at(d.pop("finished_at"))

        id = d.pop("id")

        progress = d.pop("progress")

        def _parse_started_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                started_at_type_0 = datetime.datetime.fromisoformat(data)

                return started_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        started_at = _parse_started_at(d.pop("started_at"))

        status = BatchReadStatus(d.pop("status"))

        total = d.pop("total")

        def _parse_hint(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        hint = _parse_hint(d.pop("hint", UNSET))

        _mode = d.pop("mode", UNSET)
        mode: BatchReadMode | Unset
        if isinstance(_mode, Unset):
            mode = UNSET
        else:
            mode = BatchReadMode(_mode)

        _provider_jobs = d.pop("provider_jobs", UNSET)
        provider_jobs: list[ProviderJobRead] | Unset = UNSET
        if _provider_jobs is not UNSET:
            provider_jobs = []
            for provider_jobs_item_data in _provider_jobs:
                provider_jobs_item = ProviderJobRead.from_dict(provider_jobs_item_data)

                provider_jobs.append(provider_jobs_item)

        def _parse_rate_limited_until(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                rate_limited_until_type_0 = datetime.datetime.fromisoformat(data)

                return rate_limited_until_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        rate_limited_until = _parse_rate_limited_until(d.pop("rate_limited_until", UNSET))

        unpriced_calls = d.pop("unpriced_calls", UNSET)

        def _parse_workers(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        workers = _parse_workers(d.pop("workers", UNSET))

        batch_read = cls(
            calls=calls,
            cancelled_at=cancelled_at,
            cost_usd=cost_usd,
            counts=counts,
            created_at=created_at,
            finished_at=finished_at,
            id=id,
            progress=progress,
            started_at=started_at,
            status=status,
            total=total,
            hint=hint,
            mode=mode,
            provider_jobs=provider_jobs,
            rate_limited_until=rate_limited_until,
            unpriced_calls=unpriced_calls,
            workers=workers,
        )

        batch_read.additional_properties = d
        return batch_read

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
