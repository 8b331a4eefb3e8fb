from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.win_rates_verdict import WinRatesVerdict
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.anchored_win_rate import AnchoredWinRate
    from ..models.human_win_rate import HumanWinRate
    from ..models.judge_win_rate import JudgeWinRate
    from ..models.labels_needed import LabelsNeeded
    from ..models.win_rate_filters import WinRateFilters
    from ..models.win_rates_reasons import WinRatesReasons


T = TypeVar("T", bound="WinRates")


@_attrs_define
class WinRates:
    """The win rate of `model` against `baseline`: judged, labelled, and anchored.

    Attributes:
        anchored (AnchoredWinRate | None):
        baseline (str):
        disputed (int): queue-labelled comparisons whose labelers split evenly
        filters (WinRateFilters): The filters the answer was computed with, defaults filled in (the report's parser).
        generated_at (datetime.datetime):
        human (HumanWinRate | None):
        judge (JudgeWinRate | None):
        labels_needed (LabelsNeeded | None):
        model (str):
        n_comparisons (int):
        n_labelled (int): comparisons with a gold label from the queue
        n_labelled_not_from_queue (int): comparisons carrying labels given outside the queue: counted, never used
        verdict (WinRatesVerdict): the outcome used: the final (panel) debiased verdict, or the filtered judge's own
            debiased verdict
        reasons (WinRatesReasons | Unset): why a section is null
        sampling (Literal['uniform_queue'] | Unset): the human slice is the labels drawn by the random labeling queue
            Default: 'uniform_queue'.
        schema_version (Literal[1] | Unset):  Default: 1.
        unit (Literal['comparison'] | Unset):  Default: 'comparison'.
    """

    anchored: AnchoredWinRate | None
    baseline: str
    disputed: int
    filters: WinRateFilters
    generated_at: datetime.datetime
    human: HumanWinRate | None
    judge: JudgeWinRate | None
    labels_needed: LabelsNeeded | None
    model: str
    n_comparisons: int
    n_labelled: int
    n_labelled_not_from_queue: int
    verdict: WinRatesVerdict
    reasons: WinRatesReasons | Unset = UNSET
    sampling: Literal["uniform_queue"] | Unset = "uniform_queue"
    schema_version: Literal[1] | Unset = 1
    unit: Literal["comparison"] | Unset = "comparison"
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.anchored_win_rate import AnchoredWinRate  # noqa: PLC0415
        from ..models.human_win_rate import HumanWinRate  # noqa: PLC0415
        from ..models.judge_win_rate import JudgeWinRate  # noqa: PLC0415
        from ..models.labels_needed import LabelsNeeded  # noqa: PLC0415

        anchored: dict[str, Any] | None
        if isinstance(self.anchored, AnchoredWinRate):
            anchored = self.anchored.to_dict()
        else:
            anchored = self.anchored

        baseline = self.baseline

        disputed = self.disputed

        filters = self.filters.to_dict()

        generated_at = self.generated_at.isoformat()

        human: dict[str, Any] | None
        if isinstance(self.human, HumanWinRate):
            human = self.human.to_dict()
        else:
            human = self.human

        judge: dict[str, Any] | None
        if isinstance(self.judge, JudgeWinRate):
            judge = self.judge.to_dict()
        else:
            judge = self.judge

        labels_needed: dict[str, Any] | None
        if isinstance(self.labels_needed, LabelsNeeded):
            labels_needed = self.labels_needed.to_dict()
        else:
            labels_needed = self.labels_needed

        model = self.model

        n_comparisons = self.n_comparisons

        n_labelled = self.n_labelled

        n_labelled_not_from_queue = self.n_labelled_not_from_queue

        verdict = self.verdict.value

        reasons: dict[str, Any] | Unset = UNSET
        if not isinstance(self.reasons, Unset):
            reasons = self.reasons.to_dict()

        sampling = self.sampling

        schema_version = self.schema_version

        unit = self.unit

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "anchored": anchored,
                "baseline": baseline,
                "disputed": disputed,
                "filters": filters,
                "generated_at": generated_at,
                "human": human,
                "judge": judge,
                "labels_needed": labels_needed,
                "model": model,
                "n_comparisons": n_comparisons,
                "n_labelled": n_labelled,
                "n_labelled_not_from_queue": n_labelled_not_from_queue,
                "verdict": verdict,
            }
        )
        if reasons is not UNSET:
            field_dict["reasons"] = reasons
        if sampling is not UNSET:
            field_dict["sampling"] = sampling
        if schema_version is not UNSET:
            field_dict["schema_version"] = schema_version
        if unit is not UNSET:
            field_dict["unit"] = unit

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.anchored_win_rate import AnchoredWinRate  # noqa: PLC0415
        from ..models.human_win_rate import HumanWinRate  # noqa: PLC0415
        from ..models.judge_win_rate import JudgeWinRate  # noqa: PLC0415
        from ..models.labels_needed import LabelsNeeded  # noqa: PLC0415
        from ..models.win_rate_filters import WinRateFilters  # noqa: PLC0415
        from ..models.win_rates_reasons import WinRatesReasons  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_anchored(data: object) -> AnchoredWinRate | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                anchored_type_0 = AnchoredWinRate.from_dict(data)

                return anchored_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AnchoredWinRate | None, data)

        anchored = _parse_anchored(d.pop("anchored"))

        baseline = d.pop("baseline")

        disputed = d.pop("disputed")

        filters = WinRateFilters.from_dict(d.pop("filters"))

        generated_at = datetime.datetime.fromisoformat(d.pop("generated_at"))

        def _parse_human(data: object) -> HumanWinRate | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                human_type_0 = HumanWinRate.from_dict(data)

                return human_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HumanWinRate | None, data)

        human = _parse_human(d.pop("human"))

        def _parse_judge(data: object) -> JudgeWinRate | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                judge_type_0 = JudgeWinRate.from_dict(data)

                return judge_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JudgeWinRate | None, data)

        judge = _parse_judge(d.pop("judge"))

        def _parse_labels_needed(data: object) -> LabelsNeeded | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                labels_needed_type_0 = LabelsNeeded.from_dict(data)

                return labels_needed_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LabelsNeeded | None, data)

        labels_needed = _parse_labels_needed(d.pop("labels_needed"))

        model = d.pop("model")

        n_comparisons = d.pop("n_comparisons")

        n_labelled = d.pop("n_labelled")

        n_labelled_not_from_queue = d.pop("n_labelled_not_from_queue")

        verdict = WinRatesVerdict(d.pop("verdict"))

        _reasons = d.pop("reasons", UNSET)
        reasons: WinRatesReasons | Unset
        if isinstance(_reasons, Unset):
            reasons = UNSET
        else:
            reasons = WinRatesReasons.from_dict(_reasons)

        sampling = cast(Literal["uniform_queue"] | Unset, d.pop("sampling", UNSET))
        if sampling != "uniform_queue" and not isinstance(sampling, Unset):
            raise ValueError(f"sampling must match const 'uniform_queue', got '{sampling}'")

        schema_version = cast(Literal[1] | Unset, d.pop("schema_version", UNSET))
        if schema_version != 1 and not isinstance(schema_version, Unset):
            raise ValueError(f"schema_version must match const 1, got '{schema_version}'")

        unit = cast(Literal["comparison"] | Unset, d.pop("unit", UNSET))
        if unit != "comparison" and not isinstance(unit, Unset):
            raise ValueError(f"unit must match const 'comparison', got '{unit}'")

        win_rates = cls(
            anchored=anchored,
            baseline=baseline,
            disputed=disputed,
            filters=filters,
            generated_at=generated_at,
            human=human,
            judge=judge,
            labels_needed=labels_needed,
            model=model,
            n_comparisons=n_comparisons,
            n_labelled=n_labelled,
            n_labelled_not_from_queue=n_labelled_not_from_queue,
            verdict=verdict,
            reasons=reasons,
            sampling=sampling,
            schema_version=schema_version,
            unit=unit,
        )

        win_rates.additional_properties = d
        return win_rates

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
