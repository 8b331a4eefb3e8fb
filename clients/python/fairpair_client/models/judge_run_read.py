from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.paired_test_read import PairedTestRead
    from ..models.rate_read import RateRead
    from ..models.run_figures_read import RunFiguresRead


T = TypeVar("T", bound="JudgeRunRead")


@_attrs_define
class JudgeRunRead:
    """One judge in one run: its figures, and the paired tests against its previous run and
    against its baseline run (Holm over both together).

        Attributes:
            drift (bool | None): a paired change, against the previous run or the baseline, significant after Holm and at
                least the minimum effect; null with neither to compare with
            figures (RunFiguresRead): One judge's figures on the canary's items in one run.
            items_compared (int): items present in both runs
            judge (str):
            previous_run (int | None): the run compared with; null for a first run
            tests (list[PairedTestRead]): against the previous run
            verdict_agreement (None | RateRead): items with the same verdict in both runs, over items with a verdict in both
            baseline_items_compared (int | Unset): items present in this run and the baseline Default: 0.
            baseline_run (int | None | Unset): the judge's baseline when this run settled: the first run of its version
                unless an admin pinned another (POST /v1/canaries/{name}/baseline)
            baseline_tests (list[PairedTestRead] | Unset): against the baseline; empty when the baseline is this run or the
                previous one
            version (int | None | Unset): the judge version the run's calls used
    """

    drift: bool | None
    figures: RunFiguresRead
    items_compared: int
    judge: str
    previous_run: int | None
    tests: list[PairedTestRead]
    verdict_agreement: None | RateRead
    baseline_items_compared: int | Unset = 0
    baseline_run: int | None | Unset = UNSET
    baseline_tests: list[PairedTestRead] | Unset = UNSET
    version: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.rate_read import RateRead  # noqa: PLC0415

        drift: bool | None
        drift = self.drift

        figures = self.figures.to_dict()

        items_compared = self.items_compared

        judge = self.judge

        previous_run: int | None
        previous_run = self.previous_run

        tests = []
        for tests_item_data in self.tests:
            tests_item = tests_item_data.to_dict()
            tests.append(tests_item)

        verdict_agreement: dict[str, Any] | None
        if isinstance(self.verdict_agreement, RateRead):
            verdict_agreement = self.verdict_agreement.to_dict()
        else:
            verdict_agreement = self.verdict_agreement

        baseline_items_compared = self.baseline_items_compared

        baseline_run: int | None | Unset
        if isinstance(self.baseline_run, Unset):
            baseline_run = UNSET
        else:
            baseline_run = self.baseline_run

        baseline_tests: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.baseline_tests, Unset):
            baseline_tests = []
            for baseline_tests_item_data in self.baseline_tests:
                baseline_tests_item = baseline_tests_item_data.to_dict()
                baseline_tests.append(baseline_tests_item)

        version: int | None | Unset
        if isinstance(self.version, Unset):
            version = UNSET
        else:
            version = self.version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "drift": drift,
                "figures": figures,
                "items_compared": items_compared,
                "judge": judge,
                "previous_run": previous_run,
                "tests": tests,
                "verdict_agreement": verdict_agreement,
            }
        )
        if baseline_items_compared is not UNSET:
            field_dict["baseline_items_compared"] = baseline_items_compared
        if baseline_run is not UNSET:
            field_dict["baseline_run"] = baseline_run
        if baseline_tests is not UNSET:
            field_dict["baseline_tests"] = baseline_tests
        if version is not UNSET:
            field_dict["version"] = version

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.paired_test_read import PairedTestRead  # noqa: PLC0415
        from ..models.rate_read import RateRead  # noqa: PLC0415
        from ..models.run_figures_read import RunFiguresRead  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_drift(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        drift = _parse_drift(d.pop("drift"))

        figures = RunFiguresRead.from_dict(d.pop("figures"))

        items_compared = d.pop("items_compared")

        judge = d.pop("judge")

        def _parse_previous_run(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        previous_run = _parse_previous_run(d.pop("previous_run"))

        tests = []
        _tests = d.pop("tests")
        for tests_item_data in _tests:
            tests_item = PairedTestRead.from_dict(tests_item_data)

            tests.append(tests_item)

        def _parse_verdict_agreement(data: object) -> None | RateRead:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                verdict_agreement_type_0 = RateRead.from_dict(data)

                return verdict_agreement_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RateRead, data)

        verdict_agreement = _parse_verdict_agreement(d.pop("verdict_agreement"))

        baseline_items_compared = d.pop("baseline_items_compared", UNSET)

        def _parse_baseline_run(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        baseline_run = _parse_baseline_run(d.pop("baseline_run", UNSET))

        _baseline_tests = d.pop("baseline_tests", UNSET)
        baseline_tests: list[PairedTestRead] | Unset = UNSET
        if _baseline_tests is not UNSET:
            baseline_tests = []
            for baseline_tests_item_data in _baseline_tests:
                baseline_tests_item = PairedTestRead.from_dict(baseline_tests_item_data)

                baseline_tests.append(baseline_tests_item)

        def _parse_version(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        version = _parse_version(d.pop("version", UNSET))

        judge_run_read = cls(
            drift=drift,
            figures=figures,
            items_compared=items_compared,
            judge=judge,
            previous_run=previous_run,
            tests=tests,
            verdict_agreement=verdict_agreement,
            baseline_items_compared=baseline_items_compared,
            baseline_run=baseline_run,
            baseline_tests=baseline_tests,
            version=version,
        )

        judge_run_read.additional_properties = d
        return judge_run_read

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
