from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.judge_result_read_confidence_source_type_0 import JudgeResultReadConfidenceSourceType0
from ..models.judge_result_read_winner import JudgeResultReadWinner

T = TypeVar("T", bound="JudgeResultRead")


@_attrs_define
class JudgeResultRead:
    """What one judge's calls add up to.

    Attributes:
        confidence (float | None):
        confidence_source (JudgeResultReadConfidenceSourceType0 | None): votes: the share of swap pairs voting for the
            verdict
        pairs_run (int):
        position_consistent (bool | None):
        winner (JudgeResultReadWinner):
    """

    confidence: float | None
    confidence_source: JudgeResultReadConfidenceSourceType0 | None
    pairs_run: int
    position_consistent: bool | None
    winner: JudgeResultReadWinner
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        confidence: float | None
        confidence = self.confidence

        confidence_source: None | str
        if isinstance(self.confidence_source, JudgeResultReadConfidenceSourceType0):
            confidence_source = self.confidence_source.value
        else:
            confidence_source = self.confidence_source

        pairs_run = self.pairs_run

        position_consistent: bool | None
        position_consistent = self.position_consistent

        winner = self.winner.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "confidence": confidence,
                "confidence_source": confidence_source,
                "pairs_run": pairs_run,
                "position_consistent": position_consistent,
                "winner": winner,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_confidence(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        confidence = _parse_confidence(d.pop("confidence"))

        def _parse_confidence_source(data: object) -> JudgeResultReadConfidenceSourceType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                confidence_source_type_0 = JudgeResultReadConfidenceSourceType0(data)

                return confidence_source_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JudgeResultReadConfidenceSourceType0 | None, data)

        confidence_source = _parse_confidence_source(d.pop("confidence_source"))

        pairs_run = d.pop("pairs_run")

        def _parse_position_consistent(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        position_consistent = _parse_position_consistent(d.pop("position_consistent"))

        winner = JudgeResultReadWinner(d.pop("winner"))

        judge_result_read = cls(
            confidence=confidence,
            confidence_source=confidence_source,
            pairs_run=pairs_run,
            position_consistent=position_consistent,
            winner=winner,
        )

        judge_result_read.additional_properties = d
        return judge_result_read

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
