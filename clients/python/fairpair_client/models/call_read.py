from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.call_read_confidence_source_type_0 import CallReadConfidenceSourceType0
from ..models.call_read_display_order import CallReadDisplayOrder
from ..models.call_read_mapped_winner_type_0 import CallReadMappedWinnerType0
from ..models.call_read_pick_type_0 import CallReadPickType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.call_read_labels import CallReadLabels


T = TypeVar("T", bound="CallRead")


@_attrs_define
class CallRead:
    """One stored judge call.

    Attributes:
        confidence (float | None):
        confidence_source (CallReadConfidenceSourceType0 | None):
        cost_usd (float | None):
        display_order (CallReadDisplayOrder):
        error (None | str):
        error_kind (None | str):
        finished_at (datetime.datetime):
        label_pair (str):
        labels (CallReadLabels):
        latency_ms (float):
        mapped_winner (CallReadMappedWinnerType0 | None):
        pick (CallReadPickType0 | None):
        retries (int):
        round_ (int):
        started_at (datetime.datetime):
        tokens_in (int | None):
        tokens_out (int | None):
        cached (bool | Unset): answered from the judge-call cache (the judge's `cache: true`): an exact repeat of a call
            its version answered before; costs 0 and is not a new observation Default: False.
        cached_from (int | None | Unset): the id of the stored call it repeats
        provider_model (None | str | Unset): the model the provider reports having answered with (e.g. a dated
            snapshot); null when it reported none or the call failed before an answer
        reasoning_tokens (int | None | Unset): of tokens_out, those a reasoning model spent reasoning
    """

    confidence: float | None
    confidence_source: CallReadConfidenceSourceType0 | None
    cost_usd: float | None
    display_order: CallReadDisplayOrder
    error: None | str
    error_kind: None | str
    finished_at: datetime.datetime
    label_pair: str
    labels: CallReadLabels
    latency_ms: float
    mapped_winner: CallReadMappedWinnerType0 | None
    pick: CallReadPickType0 | None
    retries: int
    round_: int
    started_at: datetime.datetime
    tokens_in: int | None
    tokens_out: int | None
    cached: bool | Unset = False
    cached_from: int | None | Unset = UNSET
    provider_model: None | str | Unset = UNSET
    reasoning_tokens: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        confidence: float | None
        confidence = self.confidence

        confidence_source: None | str
        if isinstance(self.confidence_source, CallReadConfidenceSourceType0):
            confidence_source = self.confidence_source.value
        else:
            confidence_source = self.confidence_source

        cost_usd: float | None
        cost_usd = self.cost_usd

        display_order = self.display_order.value

        error: None | str
        error = self.error

        error_kind: None | str
        error_kind = self.error_kind

        finished_at = self.finished_at.isoformat()

        label_pair = self.label_pair

        labels = self.labels.to_dict()

        latency_ms = self.latency_ms

        mapped_winner: None | str
        if isinstance(self.mapped_winner, CallReadMappedWinnerType0):
            mapped_winner = self.mapped_winner.value
        else:
            mapped_winner = self.mapped_winner

        pick: None | str
        if isinstance(self.pick, CallReadPickType0):
            pick = self.pick.value
        else:
            pick = self.pick

        retries = self.retries

        round_ = self.round_

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

        provider_model: None | str | Unset
        if isinstance(self.provider_model, Unset):
            provider_model = UNSET
        else:
            provider_model = self.provider_model

        reasoning_tokens: int | None | Unset
        if isinstance(self.reasoning_tokens, Unset):
            reasoning_tokens = UNSET
        else:
            reasoning_tokens = self.reasoning_tokens

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "confidence": confidence,
                "confidence_source": confidence_source,
                "cost_usd": cost_usd,
                "display_order": display_order,
                "error": error,
                "error_kind": error_kind,
                "finished_at": finished_at,
                "label_pair": label_pair,
                "labels": labels,
                "latency_ms": latency_ms,
                "mapped_winner": mapped_winner,
                "pick": pick,
                "retries": retries,
                "round": round_,
                "started_at": started_at,
                "tokens_in": tokens_in,
                "tokens_out": tokens_out,
            }
        )
        if cached is not UNSET:
            field_dict["cached"] = cached
        if cached_from is not UNSET:
            field_dict["cached_from"] = cached_from
        if provider_model is not UNSET:
            field_dict["provider_model"] = provider_model
        if reasoning_tokens is not UNSET:
            field_dict["reasoning_tokens"] = reasoning_tokens

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.call_read_labels import CallReadLabels  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_confidence(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        confidence = _parse_confidence(d.pop("confidence"))

        def _parse_confidence_source(data: object) -> CallReadConfidenceSourceType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                confidence_source_type_0 = CallReadConfidenceSourceType0(data)

                return confidence_source_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CallReadConfidenceSourceType0 | None, data)

        confidence_source = _parse_confidence_source(d.pop("confidence_source"))

        def _parse_cost_usd(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        cost_usd = _parse_cost_usd(d.pop("cost_usd"))

        display_order = CallReadDisplayOrder(d.pop("display_order"))

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

        label_pair = d.pop("label_pair")

        labels = CallReadLabels.from_dict(d.pop("labels"))

        latency_ms = d.pop("latency_ms")

        def _parse_mapped_winner(data: object) -> CallReadMappedWinnerType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                mapped_winner_type_0 = CallReadMappedWinnerType0(data)

                return mapped_winner_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CallReadMappedWinnerType0 | None, data)

        mapped_winner = _parse_mapped_winner(d.pop("mapped_winner"))

        def _parse_pick(data: object) -> CallReadPickType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                pick_type_0 = CallReadPickType0(data)

                return pick_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CallReadPickType0 | None, data)

        pick = _parse_pick(d.pop("pick"))

        retries = d.pop("retries")

        round_ = d.pop("round")

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

        def _parse_provider_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        provider_model = _parse_provider_model(d.pop("provider_model", UNSET))

        def _parse_reasoning_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        reasoning_tokens = _parse_reasoning_tokens(d.pop("reasoning_tokens", UNSET))

        call_read = cls(
            confidence=confidence,
            confidence_source=confidence_source,
            cost_usd=cost_usd,
            display_order=display_order,
            error=error,
            error_kind=error_kind,
            finished_at=finished_at,
            label_pair=label_pair,
            labels=labels,
            latency_ms=latency_ms,
            mapped_winner=mapped_winner,
            pick=pick,
            retries=retries,
            round_=round_,
            started_at=started_at,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            cached=cached,
            cached_from=cached_from,
            provider_model=provider_model,
            reasoning_tokens=reasoning_tokens,
        )

        call_read.additional_properties = d
        return call_read

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
