from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.compare_request_self_preference_type_0 import CompareRequestSelfPreferenceType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.compare_request_tags import CompareRequestTags
    from ..models.criterion_in import CriterionIn
    from ..models.protocol_in import ProtocolIn
    from ..models.response_in import ResponseIn


T = TypeVar("T", bound="CompareRequest")


@_attrs_define
class CompareRequest:
    """Which of two responses to one prompt is better?

    Attributes:
        prompt (str):
        response_a (ResponseIn | str):
        response_b (ResponseIn | str):
        criteria (list[CriterionIn] | None | str | Unset):
        experiment (None | str | Unset): adds the comparison to this experiment (its two responses' models must be the
            experiment's baseline and candidate); stored as the tag `fairpair:experiment`
        judges (list[str] | None | Unset):
        protocol (ProtocolIn | Unset): `{kind, pairs | max_pairs}`: pairs for shuffle (2..5), max_pairs for adaptive
            (1..5).
        reference (None | str | Unset):
        self_preference (CompareRequestSelfPreferenceType0 | None | Unset):
        tags (CompareRequestTags | Unset):
        timeout_s (float | None | Unset): seconds before calls still running are cancelled and stored failed; default
            and maximum `FAIRPAIR_COMPARE_TIMEOUT_S` (120 unless the operator set it)
    """

    prompt: str
    response_a: ResponseIn | str
    response_b: ResponseIn | str
    criteria: list[CriterionIn] | None | str | Unset = UNSET
    experiment: None | str | Unset = UNSET
    judges: list[str] | None | Unset = UNSET
    protocol: ProtocolIn | Unset = UNSET
    reference: None | str | Unset = UNSET
    self_preference: CompareRequestSelfPreferenceType0 | None | Unset = UNSET
    tags: CompareRequestTags | Unset = UNSET
    timeout_s: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.response_in import ResponseIn  # noqa: PLC0415

        prompt = self.prompt

        response_a: dict[str, Any] | str
        if isinstance(self.response_a, ResponseIn):
            response_a = self.response_a.to_dict()
        else:
            response_a = self.response_a

        response_b: dict[str, Any] | str
        if isinstance(self.response_b, ResponseIn):
            response_b = self.response_b.to_dict()
        else:
            response_b = self.response_b

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

        experiment: None | str | Unset
        if isinstance(self.experiment, Unset):
            experiment = UNSET
        else:
            experiment = self.experiment

        judges: list[str] | None | Unset
        if isinstance(self.judges, Unset):
            judges = UNSET
        elif isinstance(self.judges, list):
            judges = self.judges

        else:
            judges = self.judges

        protocol: dict[str, Any] | Unset = UNSET
        if not isinstance(self.protocol, Unset):
            protocol = self.protocol.to_dict()

        reference: None | str | Unset
        if isinstance(self.reference, Unset):
            reference = UNSET
        else:
            reference = self.reference

        self_preference: None | str | Unset
        if isinstance(self.self_preference, Unset):
            self_preference = UNSET
        elif isinstance(self.self_preference, CompareRequestSelfPreferenceType0):
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
                "response_a": response_a,
                "response_b": response_b,
            }
        )
        if criteria is not UNSET:
            field_dict["criteria"] = criteria
        if experiment is not UNSET:
            field_dict["experiment"] = experiment
        if judges is not UNSET:
            field_dict["judges"] = judges
        if protocol is not UNSET:
            field_dict["protocol"] = protocol
        if reference is not UNSET:
            field_dict["reference"] = reference
        if self_preference is not UNSET:
            field_dict["self_preference"] = self_preference
        if tags is not UNSET:
            field_dict["tags"] = tags
        if timeout_s is not UNSET:
            field_dict["timeout_s"] = timeout_s

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.compare_request_tags import CompareRequestTags  # noqa: PLC0415
        from ..models.criterion_in import CriterionIn  # noqa: PLC0415
        from ..models.protocol_in import ProtocolIn  # noqa: PLC0415
        from ..models.response_in import ResponseIn  # noqa: PLC0415

        d = dict(src_dict)
        prompt = d.pop("prompt")

        def _parse_response_a(data: object) -> ResponseIn | str:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                response_a_type_1 = ResponseIn.from_dict(data)

                return response_a_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ResponseIn | str, data)

        response_a = _parse_response_a(d.pop("response_a"))

        def _parse_response_b(data: object) -> ResponseIn | str:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                response_b_type_1 = ResponseIn.from_dict(data)

                return response_b_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ResponseIn | str, data)

        response_b = _parse_response_b(d.pop("response_b"))

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

        def _parse_experiment(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        experiment = _parse_experiment(d.pop("experiment", UNSET))

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

        _protocol = d.pop("protocol", UNSET)
        protocol: ProtocolIn | Unset
        if isinstance(_protocol, Unset):
            protocol = UNSET
        else:
            protocol = ProtocolIn.from_dict(_protocol)

        def _parse_reference(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reference = _parse_reference(d.pop("reference", UNSET))

        def _parse_self_preference(data: object) -> CompareRequestSelfPreferenceType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                self_preference_type_0 = CompareRequestSelfPreferenceType0(data)

                return self_preference_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CompareRequestSelfPreferenceType0 | None | Unset, data)

        self_preference = _parse_self_preference(d.pop("self_preference", UNSET))

        _tags = d.pop("tags", UNSET)
        tags: CompareRequestTags | Unset
        if isinstance(_tags, Unset):
            tags = UNSET
        else:
            tags = CompareRequestTags.from_dict(_tags)

        def _parse_timeout_s(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        timeout_s = _parse_timeout_s(d.pop("timeout_s", UNSET))

        compare_request = cls(
            prompt=prompt,
            response_a=response_a,
            response_b=response_b,
            criteria=criteria,
            experiment=experiment,
            judges=judges,
            protocol=protocol,
            reference=reference,
            self_preference=self_preference,
            tags=tags,
            timeout_s=timeout_s,
        )

        return compare_request
