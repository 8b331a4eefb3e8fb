from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.shown_read import ShownRead


T = TypeVar("T", bound="ScoreCallRead")


@_attrs_define
class ScoreCallRead:
    """One stored reviewer call.

    Attributes:
        cost_usd (float | None):
        error (None | str):
        error_kind (None | str):
        finished_at (datetime.datetime):
        latency_ms (float):
        provider_model (None | str):
        retries (int):
        shown (list[ShownRead]):
        started_at (datetime.datetime):
        tokens_in (int | None):
        tokens_out (int | None):
        cached (bool | Unset): answered from the judge-call cache (the reviewer's `cache: true`): its scores repeat the
            stored call's and are not new observations Default: False.
        cached_from (int | None | Unset): the id of the stored call it repeats
        reasoning_tokens (int | None | Unset): of tokens_out, those a reasoning model spent reasoning
    """

    cost_usd: float | None
    error: None | str
    error_kind: None | str
    finished_at: datetime.datetime
    latency_ms: float
    provider_model: None | str
    retries: int
    shown: list[ShownRead]
    started_at: datetime.datetime
    tokens_in: int | None
    tokens_out: int | None
    cached: bool | Unset = False
    cached_from: int | None | Unset = UNSET
    reasoning_tokens: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cost_usd: float | None
        cost_usd = self.cost_usd

        error: None | str
        error = self.error

        error_kind: None | str
        error_kind = self.error_kind

        finished_at = self.finished_at.isoformat()

        latency_ms = self.latency_ms

        provider_model: None | str
        provider_model = self.provider_model

        retries = self.retries

        shown = []
        for shown_item_data in self.shown:
            shown_item = shown_item_data.to_dict()
            shown.append(shown_item)

        started_at = self.started_at.isoformat()

        tokens_in: int | None
        tokens_in = self.tokens_in

        tokens_out: int | None
        tokens_out = self.tokens_out

        cached = self.cached

        cached_from: int | None | Unset
        if isinstance(self.cached_from, Unset):
            cached_from = UNSET
        else:
            cached_from = self.cached_from

        reasoning_tokens: int | None | Unset
        if isinstance(self.reasoning_tokens, Unset):
            reasoning_tokens = UNSET
        else:
            reasoning_tokens = self.reasoning_tokens

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cost_usd": cost_usd,
                "error": error,
                "error_kind": error_kind,
                "finished_at": finished_at,
                "latency_ms": latency_ms,
                "provider_model": provider_model,
                "retries": retries,
                "shown": shown,
                "started_at": started_at,
                "tokens_in": tokens_in,
                "tokens_out": tokens_out,
            }
        )
        if cached is not UNSET:
            field_dict["cached"] = cached
        if cached_from is not UNSET:
            field_dict["cached_from"] = cached_from
        if reasoning_tokens is not UNSET:
            field_dict["reasoning_tokens"] = reasoning_tokens

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.shown_read import ShownRead  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_cost_usd(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        cost_usd = _parse_cost_usd(d.pop("cost_usd"))

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        def _parse_error_kind(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error_kind = _parse_error_kind(d.pop("error_kind"))

        finished_at = datetime.datetime.fromisoformat(d.pop("finished_at"))

        latency_ms = d.pop("latency_ms")

        def _parse_provider_model(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        provider_model = _parse_provider_model(d.pop("provider_model"))

        retries = d.pop("retries")

        shown = []
        _shown = d.pop("shown")
        for shown_item_data in _shown:
            shown_item = ShownRead.from_dict(shown_item_data)

            shown.append(shown_item)

        started_at = datetime.datetime.fromisoformat(d.pop("started_at"))

        def _parse_tokens_in(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        tokens_in = _parse_tokens_in(d.pop("tokens_in"))

        def _parse_tokens_out(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        tokens_out = _parse_tokens_out(d.pop("tokens_out"))

        cached = d.pop("cached", UNSET)

        def _parse_cached_from(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        cached_from = _parse_cached_from(d.pop("cached_from", UNSET))

        def _parse_reasoning_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        reasoning_tokens = _parse_reasoning_tokens(d.pop("reasoning_tokens", UNSET))

        score_call_read = cls(
            cost_usd=cost_usd,
            error=error,
            error_kind=error_kind,
            finished_at=finished_at,
            latency_ms=latency_ms,
            provider_model=provider_model,
            retries=retries,
            shown=shown,
            started_at=started_at,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            cached=cached,
            cached_from=cached_from,
            reasoning_tokens=reasoning_tokens,
        )

        score_call_read.additional_properties = d
        return score_call_read

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
