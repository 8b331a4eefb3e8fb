from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_scores_audit import ResponseScoresAudit
    from ..models.response_scores_calibrated import ResponseScoresCalibrated
    from ..models.response_scores_length_normalized_type_0 import ResponseScoresLengthNormalizedType0
    from ..models.response_scores_raw import ResponseScoresRaw


T = TypeVar("T", bound="ResponseScores")


@_attrs_define
class ResponseScores:
    """One response: raw, calibrated and length-normalized scores by reviewer, and their means.

    Attributes:
        audit (ResponseScoresAudit): scores of conflicted audit reviewers, uncounted
        calibrated (ResponseScoresCalibrated): raw − the reviewer's offset (not clipped to the rubric); null without one
        calibrated_mean (float | None): over reviewers with an offset
        excluded (list[str]): reviewers kept off this response (self-preference)
        family (None | str): the family used for self-preference
        index (int):
        length (int): characters (code points) of the submitted text
        length_normalized (None | ResponseScoresLengthNormalizedType0): each raw score with the length penalty; null
            unless asked for
        length_normalized_mean (float | None):
        model (None | str):
        raw (ResponseScoresRaw): counted scores by reviewer, never rewritten
        raw_mean (float | None): over the reviewers in `raw`, who differ between responses when a reviewer was excluded
            or failed: compare responses by `shared_raw_mean` (or `calibrated_mean`)
        shared_raw_mean (float | None | Unset): over the session's `shared_reviewers` only (the same set on every
            response, so comparable across responses); null when no reviewer scored every response
    """

    audit: ResponseScoresAudit
    calibrated: ResponseScoresCalibrated
    calibrated_mean: float | None
    excluded: list[str]
    family: None | str
    index: int
    length: int
    length_normalized: None | ResponseScoresLengthNormalizedType0
    length_normalized_mean: float | None
    model: None | str
    raw: ResponseScoresRaw
    raw_mean: float | None
    shared_raw_mean: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.response_scores_length_normalized_type_0 import ResponseScoresLengthNormalizedType0  # noqa: PLC0415

        audit = self.audit.to_dict()

        calibrated = self.calibrated.to_dict()

        calibrated_mean: float | None
        calibrated_mean = self.calibrated_mean

        excluded = self.excluded

        family: None | str
        family = self.family

        index = self.index

        length = self.length

        length_normalized: dict[str, Any] | None
        if isinstance(self.length_normalized, ResponseScoresLengthNormalizedType0):
            length_normalized = self.length_normalized.to_dict()
        else:
            length_normalized = self.length_normalized

        length_normalized_mean: float | None
        length_normalized_mean = self.length_normalized_mean

        model: None | str
        model = self.model

        raw = self.raw.to_dict()

        raw_mean: float | None
        raw_mean = self.raw_mean

        shared_raw_mean: float | None | Unset
        if isinstance(self.shared_raw_mean, Unset):
            shared_raw_mean = UNSET
        else:
            shared_raw_mean = self.shared_raw_mean

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "audit": audit,
                "calibrated": calibrated,
                "calibrated_mean": calibrated_mean,
                "excluded": excluded,
                "family": family,
                "index": index,
                "length": length,
                "length_normalized": length_normalized,
                "length_normalized_mean": length_normalized_mean,
                "model": model,
                "raw": raw,
                "raw_mean": raw_mean,
            }
        )
        if shared_raw_mean is not UNSET:
            field_dict["shared_raw_mean"] = shared_raw_mean

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_scores_audit import ResponseScoresAudit  # noqa: PLC0415
        from ..models.response_scores_calibrated import ResponseScoresCalibrated  # noqa: PLC0415
        from ..models.response_scores_length_normalized_type_0 import ResponseScoresLengthNormalizedType0  # noqa: PLC0415
        from ..models.response_scores_raw import ResponseScoresRaw  # noqa: PLC0415

        d = dict(src_dict)
        audit = ResponseScoresAudit.from_dict(d.pop("audit"))

        calibrated = ResponseScoresCalibrated.from_dict(d.pop("calibrated"))

        def _parse_calibrated_mean(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        calibrated_mean = _parse_calibrated_mean(d.pop("calibrated_mean"))

        excluded = cast(list[str], d.pop("excluded"))

        def _parse_family(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        family = _parse_family(d.pop("family"))

        index = d.pop("index")

        length = d.pop("length")

        def _parse_length_normalized(data: object) -> None | ResponseScoresLengthNormalizedType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                length_normalized_type_0 = ResponseScoresLengthNormalizedType0.from_dict(data)

                return length_normalized_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseScoresLengthNormalizedType0, data)

        length_normalized = _parse_length_normalized(d.pop("length_normalized"))

        def _parse_length_normalized_mean(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        length_normalized_mean = _parse_length_normalized_mean(d.pop("length_normalized_mean"))

        def _parse_model(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        model = _parse_model(d.pop("model"))

        raw = ResponseScoresRaw.from_dict(d.pop("raw"))

        def _parse_raw_mean(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        raw_mean = _parse_raw_mean(d.pop("raw_mean"))

        def _parse_shared_raw_mean(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        shared_raw_mean = _parse_shared_raw_mean(d.pop("shared_raw_mean", UNSET))

        response_scores = cls(
            audit=audit,
            calibrated=calibrated,
            calibrated_mean=calibrated_mean,
            excluded=excluded,
            family=family,
            index=index,
            length=length,
            length_normalized=length_normalized,
            length_normalized_mean=length_normalized_mean,
            model=model,
            raw=raw,
            raw_mean=raw_mean,
            shared_raw_mean=shared_raw_mean,
        )

        response_scores.additional_properties = d
        return response_scores

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
