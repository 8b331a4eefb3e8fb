from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.judge_result_read_confidence_source_type_0 import JudgeResultReadConfidenceSourceType0
from ..models.judge_result_read_winner import JudgeResultReadWinner
from ..types import UNSET, Unset

T = TypeVar("T", bound="JudgeResultRead")


@_attrs_define
class JudgeResultRead:
    """What one judge's calls add up to.

    Attributes:
        confidence (float | None): the probability of `winner`: never below 0.5 for A or B (a winner whose calls put it
            below one half gets 0.5, source floored); see confidence_source
        confidence_source (JudgeResultReadConfidenceSourceType0 | None): logprobs or stated: the mean of the calls'
            confidences of that source; mixed: of calls of different sources; votes: the share of swap pairs voting for the
            verdict, a pair that contradicted itself backing its tie with one half (for a tie by a split, the best-backed
            option's share, at most 0.5); inconsistent: a fixed 0.5, because the judge contradicted itself (every pair's two
            orders disagreed, under any protocol), so always with position_consistent false; floored: 0.5, because the calls
            that picked an A or B winner put its probability below one half (a three-way share with ties can), and a winner
            is never named below 0.5
        pairs_run (int):
        position_consistent (bool | None): true when every swap pair that voted picked the same response in both display
            orders; false when one changed its pick with the order (it voted tie); null for single, which shows one order
            only
        winner (JudgeResultReadWinner):
        pairs_agree (bool | None | Unset): true when every swap pair that voted cast the same vote, false when they
            voted differently (e.g. one A, one B); null with fewer than two voting pairs
    """

    confidence: float | None
    confidence_source: JudgeResultReadConfidenceSourceType0 | None
    pairs_run: int
    position_consistent: bool | None
    winner: JudgeResultReadWinner
    pairs_agree: bool | None | Unset = UNSET
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

        pairs_agree: bool | None | Unset
        if isinstance(self.pairs_agree, Unset):
            pairs_agree = UNSET
        else:
            pairs_agree = self.pairs_agree

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
        if pairs_agree is not UNSET:
            field_dict["pairs_agree"] = pairs_agree

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

        def _parse_pairs_agree(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        pairs_agree = _parse_pairs_agree(d.pop("pairs_agree", UNSET))

        judge_result_read = cls(
            confidence=confidence,
            confidence_source=confidence_source,
            pairs_run=pairs_run,
            position_consistent=position_consistent,
            winner=winner,
            pairs_agree=pairs_agree,
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
