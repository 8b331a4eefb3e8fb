from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.judge_alt_test import JudgeAltTest
    from ..models.win_rate_filters import WinRateFilters


T = TypeVar("T", bound="AltTest")


@_attrs_define
class AltTest:
    """Can each judge replace a human labeler? Calderon, Reichart and Dror's alternative-
    annotator test over the queue-labelled comparisons (docs/STATISTICS.md).

        Attributes:
            epsilon (float): the cost-benefit margin granted to the judge
            filters (WinRateFilters): The filters the answer was computed with, defaults filled in (the report's parser).
            judges (list[JudgeAltTest]): every judge with a verdict on them, by name
            n_items (int): comparisons in scope with two or more queue labelers
            q (float): the false discovery rate controlled across labelers
            generated_at (datetime.datetime | Unset):
            min_items_per_labeler (int | Unset):  Default: 30.
            min_labelers (int | Unset):  Default: 3.
            sampling (Literal['uniform_queue'] | Unset): only labels drawn from the random labeling queue count Default:
                'uniform_queue'.
            schema_version (Literal[1] | Unset):  Default: 1.
            scoring (Literal['accuracy'] | Unset):  Default: 'accuracy'.
    """

    epsilon: float
    filters: WinRateFilters
    judges: list[JudgeAltTest]
    n_items: int
    q: float
    generated_at: datetime.datetime | Unset = UNSET
    min_items_per_labeler: int | Unset = 30
    min_labelers: int | Unset = 3
    sampling: Literal["uniform_queue"] | Unset = "uniform_queue"
    schema_version: Literal[1] | Unset = 1
    scoring: Literal["accuracy"] | Unset = "accuracy"
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        epsilon = self.epsilon

        filters = self.filters.to_dict()

        judges = []
        for judges_item_data in self.judges:
            judges_item = judges_item_data.to_dict()
            judges.append(judges_item)

        n_items = self.n_items

        q = self.q

        generated_at: str | Unset = UNSET
        if not isinstance(self.generated_at, Unset):
            generated_at = self.generated_at.isoformat()

        min_items_per_labeler = self.min_items_per_labeler

        min_labelers = self.min_labelers

        sampling = self.sampling

        schema_version = self.schema_version

        scoring = self.scoring

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "epsilon": epsilon,
                "filters": filters,
                "judges": judges,
                "n_items": n_items,
                "q": q,
            }
        )
        if generated_at is not UNSET:
            field_dict["generated_at"] = generated_at
        if min_items_per_labeler is not UNSET:
            field_dict["min_items_per_labeler"] = min_items_per_labeler
        if min_labelers is not UNSET:
            field_dict["min_labelers"] = min_labelers
        if sampling is not UNSET:
            field_dict["sampling"] = sampling
        if schema_version is not UNSET:
            field_dict["schema_version"] = schema_version
        if scoring is not UNSET:
            field_dict["scoring"] = scoring

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.judge_alt_test import JudgeAltTest  # noqa: PLC0415
        from ..models.win_rate_filters import WinRateFilters  # noqa: PLC0415

        d = dict(src_dict)
        epsilon = d.pop("epsilon")

        filters = WinRateFilters.from_dict(d.pop("filters"))

        judges = []
        _judges = d.pop("judges")
        for judges_item_data in _judges:
            judges_item = JudgeAltTest.from_dict(judges_item_data)

            judges.append(judges_item)

        n_items = d.pop("n_items")

        q = d.pop("q")

        _generated_at = d.pop("generated_at", UNSET)
        generated_at: datetime.datetime | Unset
        if isinstance(_generated_at, Unset):
            generated_at = UNSET
        else:
            generated_at = datetime.datetime.fromisoformat(_generated_at)

        min_items_per_labeler = d.pop("min_items_per_labeler", UNSET)

        min_labelers = d.pop("min_labelers", UNSET)

        sampling = cast(Literal["uniform_queue"] | Unset, d.pop("sampling", UNSET))
        if sampling != "uniform_queue" and not isinstance(sampling, Unset):
            raise ValueError(f"sampling must match const 'uniform_queue', got '{sampling}'")

        schema_version = cast(Literal[1] | Unset, d.pop("schema_version", UNSET))
        if schema_version != 1 and not isinstance(schema_version, Unset):
            raise ValueError(f"schema_version must match const 1, got '{schema_version}'")

        scoring = cast(Literal["accuracy"] | Unset, d.pop("scoring", UNSET))
        if scoring != "accuracy" and not isinstance(scoring, Unset):
            raise ValueError(f"scoring must match const 'accuracy', got '{scoring}'")

        alt_test = cls(
            epsilon=epsilon,
            filters=filters,
            judges=judges,
            n_items=n_items,
            q=q,
            generated_at=generated_at,
            min_items_per_labeler=min_items_per_labeler,
            min_labelers=min_labelers,
            sampling=sampling,
            schema_version=schema_version,
            scoring=scoring,
        )

        alt_test.additional_properties = d
        return alt_test

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
