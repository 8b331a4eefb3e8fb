from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.comparison_read_confidence_source_type_0 import ComparisonReadConfidenceSourceType0
from ..models.comparison_read_status import ComparisonReadStatus
from ..models.comparison_read_winner_type_0 import ComparisonReadWinnerType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.comparison_read_tags import ComparisonReadTags
    from ..models.excluded_read import ExcludedRead
    from ..models.judge_entry import JudgeEntry
    from ..models.lengths import Lengths
    from ..models.protocol_in import ProtocolIn


T = TypeVar("T", bound="ComparisonRead")


@_attrs_define
class ComparisonRead:
    """A comparison and its debiased verdict (the answer of `POST /v1/compare`).

    Attributes:
        agreement (float | None):
        bias_detected (bool | None): true when any voting judge showed position bias on this comparison (a swap pair
            that disagreed with itself): exactly `position_consistent == false`; null when it cannot tell: under single (one
            display order shown, nothing to detect) or when no judge has a result
        completed_at (datetime.datetime | None):
        confidence (float | None): the probability of `winner`: the mean confidence of the voting judges whose winner it
            is (0.5 for an even split), so never below 0.5 for A or B
        conflicted (list[str]): every judge of the requested panel that shares a family with a response, whatever the
            policy did with it; what that was: `conflicted_voters`, `conflicted_audits`, `conflicted_excluded`
        created_at (datetime.datetime):
        excluded (list[ExcludedRead]):
        id (str):
        judges (list[JudgeEntry]):
        lengths (Lengths): Response lengths in characters (code points) of the submitted texts.
        position_consistent (bool | None): false when any voting judge changed its pick when only the display order
            changed; true when every voting judge that could tell was consistent; null when none could (single) or no judge
            has a result
        protocol (ProtocolIn): `{kind, pairs | max_pairs}`: pairs for shuffle (2..5), max_pairs for adaptive (1..5).
        self_preference_risk (bool):
        simulated (bool):
        status (ComparisonReadStatus):
        tags (ComparisonReadTags):
        winner (ComparisonReadWinnerType0 | None):
        confidence_source (ComparisonReadConfidenceSourceType0 | None | Unset): where `confidence` comes from: the
            backing judges' one source, mixed when they differ, votes for an even split of the panel
        conflicted_audits (list[str] | Unset): conflicted judges that ran and are stored but did not vote (policy audit,
            and exclude's audit share)
        conflicted_excluded (list[str] | Unset): conflicted judges that did not run (policy exclude, or substitute:
            replaced by a judge of the default panel); reasons in `excluded`
        conflicted_voters (list[str] | Unset): conflicted judges that voted (policy warn or allow; under exclude or
            substitute, every judge when no other could vote: `self_preference_risk`)
        error_kind (None | str | Unset):
    """

    agreement: float | None
    bias_detected: bool | None
    completed_at: datetime.datetime | None
    confidence: float | None
    conflicted: list[str]
    created_at: datetime.datetime
    excluded: list[ExcludedRead]
    id: str
    judges: list[JudgeEntry]
    lengths: Lengths
    position_consistent: bool | None
    protocol: ProtocolIn
    self_preference_risk: bool
    simulated: bool
    status: ComparisonReadStatus
    tags: ComparisonReadTags
    winner: ComparisonReadWinnerType0 | None
    confidence_source: ComparisonReadConfidenceSourceType0 | None | Unset = UNSET
    conflicted_audits: list[str] | Unset = UNSET
    conflicted_excluded: list[str] | Unset = UNSET
    conflicted_voters: list[str] | Unset = UNSET
    error_kind: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agreement: float | None
        agreement = self.agreement

        bias_detected: bool | None
        bias_detected = self.bias_detected

        completed_at: None | str
        if isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        confidence: float | None
        confidence = self.confidence

        conflicted = self.conflicted

        created_at = self.created_at.isoformat()

        excluded = []
        for excluded_item_data in self.excluded:
            excluded_item = excluded_item_data.to_dict()
            excluded.append(excluded_item)

        id = self.id

        judges = []
        for judges_item_data in self.judges:
            judges_item = judges_item_data.to_dict()
            judges.append(judges_item)

        lengths = self.lengths.to_dict()

        position_consistent: bool | None
        position_consistent = self.position_consistent

        protocol = self.protocol.to_dict()

        self_preference_risk = self.self_preference_risk

        simulated = self.simulated

        status = self.status.value

        tags = self.tags.to_dict()

        winner: None | str
        if isinstance(self.winner, ComparisonReadWinnerType0):
            winner = self.winner.value
        else:
            winner = self.winner

        confidence_source: None | str | Unset
        if isinstance(self.confidence_source, Unset):
            confidence_source = UNSET
        elif isinstance(self.confidence_source, ComparisonReadConfidenceSourceType0):
            confidence_source = self.confidence_source.value
        else:
            confidence_source = self.confidence_source

        conflicted_audits: list[str] | Unset = UNSET
        if not isinstance(self.conflicted_audits, Unset):
            conflicted_audits = self.conflicted_audits

        conflicted_excluded: list[str] | Unset = UNSET
        if not isinstance(self.conflicted_excluded, Unset):
            conflicted_excluded = self.conflicted_excluded

        conflicted_voters: list[str] | Unset = UNSET
        if not isinstance(self.conflicted_voters, Unset):
            conflicted_voters = self.conflicted_voters

        error_kind: None | str | Unset
        if isinstance(self.error_kind, Unset):
            error_kind = UNSET
        else:
            error_kind = self.error_kind

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agreement": agreement,
                "bias_detected": bias_detected,
                "completed_at": completed_at,
                "confidence": confidence,
                "conflicted": conflicted,
                "created_at": created_at,
                "excluded": excluded,
                "id": id,
                "judges": judges,
                "lengths": lengths,
                "position_consistent": position_consistent,
                "protocol": protocol,
                "self_preference_risk": self_preference_risk,
                "simulated": simulated,
                "status": status,
                "tags": tags,
                "winner": winner,
            }
        )
        if confidence_source is not UNSET:
            field_dict["confidence_source"] = confidence_source
        if conflicted_audits is not UNSET:
            field_dict["conflicted_audits"] = conflicted_audits
        if conflicted_excluded is not UNSET:
            field_dict["conflicted_excluded"] = conflicted_excluded
        if conflicted_voters is not UNSET:
            field_dict["conflicted_voters"] = conflicted_voters
        if error_kind is not UNSET:
            field_dict["error_kind"] = error_kind

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.comparison_read_tags import ComparisonReadTags  # noqa: PLC0415
        from ..models.excluded_read import ExcludedRead  # noqa: PLC0415
        from ..models.judge_entry import JudgeEntry  # noqa: PLC0415
        from ..models.lengths import Lengths  # noqa: PLC0415
        from ..models.protocol_in import ProtocolIn  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_agreement(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        agreement = _parse_agreement(d.pop("agreement"))

        def _parse_bias_detected(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        bias_detected = _parse_bias_detected(d.pop("bias_detected"))

        def _parse_completed_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                completed_at_type_0 = datetime.datetime.fromisoformat(data)

                return completed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        completed_at = _parse_completed_at(d.pop("completed_at"))

        def _parse_confidence(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        confidence = _parse_confidence(d.pop("confidence"))

        conflicted = cast(list[str], d.pop("conflicted"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        excluded = []
        _excluded = d.pop("excluded")
        for excluded_item_data in _excluded:
            excluded_item = ExcludedRead.from_dict(excluded_item_data)

            excluded.append(excluded_item)

        id = d.pop("id")

        judges = []
        _judges = d.pop("judges")
        for judges_item_data in _judges:
            judges_item = JudgeEntry.from_dict(judges_item_data)

            judges.append(judges_item)

        lengths = Lengths.from_dict(d.pop("lengths"))

        def _parse_position_consistent(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        position_consistent = _parse_position_consistent(d.pop("position_consistent"))

        protocol = ProtocolIn.from_dict(d.pop("protocol"))

        self_preference_risk = d.pop("self_preference_risk")

        simulated = d.pop("simulated")

        status = ComparisonReadStatus(d.pop("status"))

        tags = ComparisonReadTags.from_dict(d.pop("tags"))

        def _parse_winner(data: object) -> ComparisonReadWinnerType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                winner_type_0 = ComparisonReadWinnerType0(data)

                return winner_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ComparisonReadWinnerType0 | None, data)

        winner = _parse_winner(d.pop("winner"))

        def _parse_confidence_source(data: object) -> ComparisonReadConfidenceSourceType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                confidence_source_type_0 = ComparisonReadConfidenceSourceType0(data)

                return confidence_source_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ComparisonReadConfidenceSourceType0 | None | Unset, data)

        confidence_source = _parse_confidence_source(d.pop("confidence_source", UNSET))

        conflicted_audits = cast(list[str], d.pop("conflicted_audits", UNSET))

        conflicted_excluded = cast(list[str], d.pop("conflicted_excluded", UNSET))

        conflicted_voters = cast(list[str], d.pop("conflicted_voters", UNSET))

        def _parse_error_kind(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error_kind = _parse_error_kind(d.pop("error_kind", UNSET))

        comparison_read = cls(
            agreement=agreement,
            bias_detected=bias_detected,
            completed_at=completed_at,
            confidence=confidence,
            conflicted=conflicted,
            created_at=created_at,
            excluded=excluded,
            id=id,
            judges=judges,
            lengths=lengths,
            position_consistent=position_consistent,
            protocol=protocol,
            self_preference_risk=self_preference_risk,
            simulated=simulated,
            status=status,
            tags=tags,
            winner=winner,
            confidence_source=confidence_source,
            conflicted_audits=conflicted_audits,
            conflicted_excluded=conflicted_excluded,
            conflicted_voters=conflicted_voters,
            error_kind=error_kind,
        )

        comparison_read.additional_properties = d
        return comparison_read

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
