from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.score_request_self_preference_type_0 import ScoreRequestSelfPreferenceType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.criterion_in import CriterionIn
    from ..models.response_in import ResponseIn
    from ..models.rubric_in import RubricIn
    from ..models.score_request_tags import ScoreRequestTags


T = TypeVar("T", bound="ScoreRequest")


@_attrs_define
class ScoreRequest:
    """Score 1..20 responses to one prompt on a rubric, with a panel of reviewers.

    Attributes:
        prompt (str):
        responses (list[ResponseIn | str]):
        criteria (list[CriterionIn] | None | str | Unset):
        judges (list[str] | None | Unset):
        length_normalize (bool | Unset): also return length-normalized scores Default: False.
        length_target (int | Unset): characters Default: 500.
        rubric (None | RubricIn | Unset): default: 1..5 with a conciseness level
        self_preference (None | ScoreRequestSelfPreferenceType0 | Unset):
        tags (ScoreRequestTags | Unset):
        timeout_s (float | None | Unset): seconds before calls still running are cancelled and stored failed; default
            and maximum `FAIRPAIR_COMPARE_TIMEOUT_S` (120 unless the operator set it)
    """

    prompt: str
    responses: list[ResponseIn | str]
    criteria: list[CriterionIn] | None | str | Unset = UNSET
    judges: list[str] | None | Unset = UNSET
    length_normalize: bool | Unset = False
    length_target: int | Unset = 500
    rubric: None | RubricIn | Unset = UNSET
    self_preference: None | ScoreRequestSelfPreferenceType0 | Unset = UNSET
    tags: ScoreRequestTags | Unset = UNSET
    timeout_s: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.response_in import ResponseIn  # noqa: PLC0415
        from ..models.rubric_in import RubricIn  # noqa: PLC0415

        prompt = self.prompt

        responses = []
        for responses_item_data in self.responses:
            responses_item: dict[str, Any] | str
            if isinstance(responses_item_data, ResponseIn):
                responses_item = responses_item_data.to_dict()
            else:
                responses_item = responses_item_data
            responses.append(responses_item)

        criteria: list[dict[str, Any]] | None | str | Unset
        if isinstance(self.criteria, Unset):
            criteria = UNSET
        elif isinstance(self.criteria, list):
            criteria = []
            for criteria_type_1_item_data in self.criteria:
                criteria_type_1_item = criteria_type_1_item_data.to_dict()
                criteria.append(criteria_type_1_item)

        else:
            criteria = self.criteria

        judges: list[str] | None | Unset
        if isinstance(self.judges, Unset):
            judges = UNSET
        elif isinstance(self.judges, list):
            judges = self.judges

        else:
            judges = self.judges

        length_normalize = self.length_normalize

        length_target = self.length_target

        rubric: dict[str, Any] | None | Unset
        if isinstance(self.rubric, Unset):
            rubric = UNSET
        elif isinstance(self.rubric, RubricIn):
            rubric = self.rubric.to_dict()
        else:
            rubric = self.rubric

        self_preference: None | str | Unset
        if isinstance(self.self_preference, Unset):
            self_preference = UNSET
        elif isinstance(self.self_preference, ScoreRequestSelfPreferenceType0):
            self_preference = self.self_preference.value
        else:
            self_preference = self.self_preference

        tags: dict[str, Any] | Unset = UNSET
        if not isinstance(self.tags, Unset):
            tags = self.tags.to_dict()

        timeout_s: float | None | Unset
        if isinstance(self.timeout_s, Unset):
            timeout_s = UNSET
        else:
            timeout_s = self.timeout_s

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "prompt": prompt,
                "responses": responses,
            }
        )
        if criteria is not UNSET:
            field_dict["criteria"] = criteria
        if judges is not UNSET:
            field_dict["judges"] = judges
        if length_normalize is not UNSET:
            field_dict["length_normalize"] = length_normalize
        if length_target is not UNSET:
            field_dict["length_target"] = length_target
        if rubric is not UNSET:
            field_dict["rubric"] = rubric
        if self_preference is not UNSET:
            field_dict["self_preference"] = self_preference
        if tags is not UNSET:
            field_dict["tags"] = tags
        if timeout_s is not UNSET:
            field_dict["timeout_s"] = timeout_s

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.criterion_in import CriterionIn  # noqa: PLC0415
        from ..models.response_in import ResponseIn  # noqa: PLC0415
        from ..models.rubric_in import RubricIn  # noqa: PLC0415
        from ..models.score_request_tags import ScoreRequestTags  # noqa: PLC0415

        d = dict(src_dict)
        prompt = d.pop("prompt")

        responses = []
        _responses = d.pop("responses")
        for responses_item_data in _responses:

            def _parse_responses_item(data: object) -> ResponseIn | str:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    responses_item_type_1 = ResponseIn.from_dict(data)

                    return responses_item_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                return cast(ResponseIn | str, data)

            responses_item = _parse_responses_item(responses_item_data)

            responses.append(responses_item)

        def _parse_criteria(data: object) -> list[CriterionIn] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                criteria_type_1 = []
                _criteria_type_1 = data
                for criteria_type_1_item_data in _criteria_type_1:
                    criteria_type_1_item = CriterionIn.from_dict(criteria_type_1_item_data)

                    criteria_type_1.append(criteria_type_1_item)

                return criteria_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[CriterionIn] | None | str | Unset, data)

        criteria = _parse_criteria(d.pop("criteria", UNSET))

        def _parse_judges(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                judges_type_0 = cast(list[str], data)

                return judges_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        judges = _parse_judges(d.pop("judges", UNSET))

        length_normalize = d.pop("length_normalize", UNSET)

        length_target = d.pop("length_target", UNSET)

        def _parse_rubric(data: object) -> None | RubricIn | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                rubric_type_0 = RubricIn.from_dict(data)

                return rubric_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RubricIn | Unset, data)

        rubric = _parse_rubric(d.pop("rubric", UNSET))

        def _parse_self_preference(data: object) -> None | ScoreRequestSelfPreferenceType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                self_preference_type_0 = ScoreRequestSelfPreferenceType0(data)

                return self_preference_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ScoreRequestSelfPreferenceType0 | Unset, data)

        self_preference = _parse_self_preference(d.pop("self_preference", UNSET))

        _tags = d.pop("tags", UNSET)
        tags: ScoreRequestTags | Unset
        if isinstance(_tags, Unset):
            tags = UNSET
        else:
            tags = ScoreRequestTags.from_dict(_tags)

        def _parse_timeout_s(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        timeout_s = _parse_timeout_s(d.pop("timeout_s", UNSET))

        score_request = cls(
            prompt=prompt,
            responses=responses,
            criteria=criteria,
            judges=judges,
            length_normalize=length_normalize,
            length_target=length_target,
            rubric=rubric,
            self_preference=self_preference,
            tags=tags,
            timeout_s=timeout_s,
        )

        return score_request
