from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.sim_settings_offsets import SimSettingsOffsets


T = TypeVar("T", bound="SimSettings")


@_attrs_define
class SimSettings:
    """Knobs of the simulated judge (JUDGING.md).

    Attributes:
        beta (float | Unset):  Default: 1.5.
        error_rate (float | Unset):  Default: 0.0.
        first_slot_bonus (float | Unset):  Default: 0.0.
        injection_following (float | Unset): share of pairs where it obeys an instruction in a response Default: 0.0.
        label_bias (float | Unset):  Default: 0.0.
        latency_ms (float | Unset):  Default: 0.0.
        length_bias (float | Unset):  Default: 0.0.
        malformed_rate (float | Unset):  Default: 0.0.
        offsets (SimSettingsOffsets | Unset):
        position_bias (float | Unset):  Default: 0.0.
        score_noise (float | Unset):  Default: 0.5.
        seed (int | Unset):  Default: 0.
        self_preference (float | Unset):  Default: 0.0.
        tie_rate (float | Unset):  Default: 0.0.
    """

    beta: float | Unset = 1.5
    error_rate: float | Unset = 0.0
    first_slot_bonus: float | Unset = 0.0
    injection_following: float | Unset = 0.0
    label_bias: float | Unset = 0.0
    latency_ms: float | Unset = 0.0
    length_bias: float | Unset = 0.0
    malformed_rate: float | Unset = 0.0
    offsets: SimSettingsOffsets | Unset = UNSET
    position_bias: float | Unset = 0.0
    score_noise: float | Unset = 0.5
    seed: int | Unset = 0
    self_preference: float | Unset = 0.0
    tie_rate: float | Unset = 0.0

    def to_dict(self) -> dict[str, Any]:
        beta = self.beta

        error_rate = self.error_rate

        first_slot_bonus = self.first_slot_bonus

        injection_following = self.injection_following

        label_bias = self.label_bias

        latency_ms = self.latency_ms

        length_bias = self.length_bias

        malformed_rate = self.malformed_rate

        offsets: dict[str, Any] | Unset = UNSET
        if not isinstance(self.offsets, Unset):
            offsets = self.offsets.to_dict()

        position_bias = self.position_bias

        score_noise = self.score_noise

        seed = self.seed

        self_preference = self.self_preference

        tie_rate = self.tie_rate

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if beta is not UNSET:
            field_dict["beta"] = beta
        if error_rate is not UNSET:
            field_dict["error_rate"] = error_rate
        if first_slot_bonus is not UNSET:
            field_dict["first_slot_bonus"] = first_slot_bonus
        if injection_following is not UNSET:
            field_dict["injection_following"] = injection_following
        if label_bias is not UNSET:
            field_dict["label_bias"] = label_bias
        if latency_ms is not UNSET:
            field_dict["latency_ms"] = latency_ms
        if length_bias is not UNSET:
            field_dict["length_bias"] = length_bias
        if malformed_rate is not UNSET:
            field_dict["malformed_rate"] = malformed_rate
        if offsets is not UNSET:
            field_dict["offsets"] = offsets
        if position_bias is not UNSET:
            field_dict["position_bias"] = position_bias
        if score_noise is not UNSET:
            field_dict["score_noise"] = score_noise
        if seed is not UNSET:
            field_dict["seed"] = seed
        if self_preference is not UNSET:
            field_dict["self_preference"] = self_preference
        if tie_rate is not UNSET:
            field_dict["tie_rate"] = tie_rate

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.sim_settings_offsets import SimSettingsOffsets  # noqa: PLC0415

        d = dict(src_dict)
        beta = d.pop("beta", UNSET)

        error_rate = d.pop("error_rate", UNSET)

        first_slot_bonus = d.pop("first_slot_bonus", UNSET)

        injection_following = d.pop("injection_following", UNSET)

        label_bias = d.pop("label_bias", UNSET)

        latency_ms = d.pop("latency_ms", UNSET)

        length_bias = d.pop("length_bias", UNSET)

        malformed_rate = d.pop("malformed_rate", UNSET)

        _offsets = d.pop("offsets", UNSET)
        offsets: SimSettingsOffsets | Unset
        if isinstance(_offsets, Unset):
            offsets = UNSET
        else:
            offsets = SimSettingsOffsets.from_dict(_offsets)

        position_bias = d.pop("position_bias", UNSET)

        score_noise = d.pop("score_noise", UNSET)

        seed = d.pop("seed", UNSET)

        self_preference = d.pop("self_preference", UNSET)

        tie_rate = d.pop("tie_rate", UNSET)

        sim_settings = cls(
            beta=beta,
            error_rate=error_rate,
            first_slot_bonus=first_slot_bonus,
            injection_following=injection_following,
            label_bias=label_bias,
            latency_ms=latency_ms,
            length_bias=length_bias,
            malformed_rate=malformed_rate,
            offsets=offsets,
            position_bias=position_bias,
            score_noise=score_noise,
            seed=seed,
            self_preference=self_preference,
            tie_rate=tie_rate,
        )

        return sim_settings
