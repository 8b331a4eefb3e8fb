from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.response_in import ResponseIn


T = TypeVar("T", bound="ExperimentItemIn")


@_attrs_define
class ExperimentItemIn:
    """One prompt and the two responses to it: the baseline's and the candidate's.

    Attributes:
        baseline (ResponseIn | str):
        candidate (ResponseIn | str):
        prompt (str):
    """

    baseline: ResponseIn | str
    candidate: ResponseIn | str
    prompt: str

    def to_dict(self) -> dict[str, Any]:
        from ..models.response_in import ResponseIn  # noqa: PLC0415

        baseline: dict[str, Any] | str
        if isinstance(self.baseline, ResponseIn):
            baseline = self.baseline.to_dict()
        else:
            baseline = self.baseline

        candidate: dict[str, Any] | str
        if isinstance(self.candidate, ResponseIn):
            candidate = self.candidate.to_dict()
        else:
            candidate = self.candidate

        prompt = self.prompt

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "baseline": baseline,
                "candidate": candidate,
                "prompt": prompt,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_in import ResponseIn  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_baseline(data: object) -> ResponseIn | str:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                baseline_type_1 = ResponseIn.from_dict(data)

                return baseline_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ResponseIn | str, data)

        baseline = _parse_baseline(d.pop("baseline"))

        def _parse_candidate(data: object) -> ResponseIn | str:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                candidate_type_1 = ResponseIn.from_dict(data)

                return candidate_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ResponseIn | str, data)

        candidate = _parse_candidate(d.pop("candidate"))

        prompt = d.pop("prompt")

        experiment_item_in = cls(
            baseline=baseline,
            candidate=candidate,
            prompt=prompt,
        )

        return experiment_item_in
