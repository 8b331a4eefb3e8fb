from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.anchored_ratings import AnchoredRatings
    from ..models.fragility import Fragility
    from ..models.leaderboard_filters_read import LeaderboardFiltersRead
    from ..models.model_standing import ModelStanding


T = TypeVar("T", bound="Leaderboard")


@_attrs_define
class Leaderboard:
    """Bradley-Terry ranking of generating models from debiased outcomes.

    Attributes:
        computed_at (datetime.datetime): when these figures were computed (cached since)
        filters (LeaderboardFiltersRead): The filters the leaderboard was computed with.
        models (list[ModelStanding]):
        n (int): comparisons the ratings are fitted on
        sampled (bool): only the 100,000 most recent comparisons were fitted
        anchored_ratings (AnchoredRatings | None | Unset): the anchored fit's counts, λ, or why it has none
        baseline_comparisons (int | None | Unset): direct comparisons of the baseline in scope (up to the 100,000 most
            recent); 0: the baseline has none here (an unknown model, or none in these filters); null without a baseline
        fragility (Fragility | None | Unset): null with fewer than two rated models
        schema_version (Literal[1] | Unset):  Default: 1.
    """

    computed_at: datetime.datetime
    filters: LeaderboardFiltersRead
    models: list[ModelStanding]
    n: int
    sampled: bool
    anchored_ratings: AnchoredRatings | None | Unset = UNSET
    baseline_comparisons: int | None | Unset = UNSET
    fragility: Fragility | None | Unset = UNSET
    schema_version: Literal[1] | Unset = 1
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.anchored_ratings import AnchoredRatings  # noqa: PLC0415
        from ..models.fragility import Fragility  # noqa: PLC0415

        computed_at = self.computed_at.isoformat()

        filters = self.filters.to_dict()

        models = []
        for models_item_data in self.models:
            models_item = models_item_data.to_dict()
            models.append(models_item)

        n = self.n

        sampled = self.sampled

        anchored_ratings: dict[str, Any] | None | Unset
        if isinstance(self.anchored_ratings, Unset):
            anchored_ratings = UNSET
        elif isinstance(self.anchored_ratings, AnchoredRatings):
            anchored_ratings = self.anchored_ratings.to_dict()
        else:
            anchored_ratings = self.anchored_ratings

        baseline_comparisons: int | None | Unset
        if isinstance(self.baseline_comparisons, Unset):
            baseline_comparisons = UNSET
        else:
            baseline_comparisons = self.baseline_comparisons

        fragility: dict[str, Any] | None | Unset
        if isinstance(self.fragility, Unset):
            fragility = UNSET
        elif isinstance(self.fragility, Fragility):
            fragility = self.fragility.to_dict()
        else:
            fragility = self.fragility

        schema_version = self.schema_version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "computed_at": computed_at,
                "filters": filters,
                "models": models,
                "n": n,
                "sampled": sampled,
            }
        )
        if anchored_ratings is not UNSET:
            field_dict["anchored_ratings"] = anchored_ratings
        if baseline_comparisons is not UNSET:
            field_dict["baseline_comparisons"] = baseline_comparisons
        if fragility is not UNSET:
            field_dict["fragility"] = fragility
        if schema_version is not UNSET:
            field_dict["schema_version"] = schema_version

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.anchored_ratings import AnchoredRatings  # noqa: PLC0415
        from ..models.fragility import Fragility  # noqa: PLC0415
        from ..models.leaderboard_filters_read import LeaderboardFiltersRead  # noqa: PLC0415
        from ..models.model_standing import ModelStanding  # noqa: PLC0415

        d = dict(src_dict)
        computed_at = datetime.datetime.fromisoformat(d.pop("computed_at"))

        filters = LeaderboardFiltersRead.from_dict(d.pop("filters"))

        models = []
        _models = d.pop("models")
        for models_item_data in _models:
            models_item = ModelStanding.from_dict(models_item_data)

            models.append(models_item)

        n = d.pop("n")

        sampled = d.pop("sampled")

        def _parse_anchored_ratings(data: object) -> AnchoredRatings | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                anchored_ratings_type_0 = AnchoredRatings.from_dict(data)

                return anchored_ratings_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AnchoredRatings | None | Unset, data)

        anchored_ratings = _parse_anchored_ratings(d.pop("anchored_ratings", UNSET))

        def _parse_baseline_comparisons(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        baseline_comparisons = _parse_baseline_comparisons(d.pop("baseline_comparisons", UNSET))

        def _parse_fragility(data: object) -> Fragility | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                fragility_type_0 = Fragility.from_dict(data)

                return fragility_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Fragility | None | Unset, data)

        fragility = _parse_fragility(d.pop("fragility", UNSET))

        schema_version = cast(Literal[1] | Unset, d.pop("schema_version", UNSET))
        if schema_version != 1 and not isinstance(schema_version, Unset):
            raise ValueError(f"schema_version must match const 1, got '{schema_version}'")

        leaderboard = cls(
            computed_at=computed_at,
            filters=filters,
            models=models,
            n=n,
            sampled=sampled,
            anchored_ratings=anchored_ratings,
            baseline_comparisons=baseline_comparisons,
            fragility=fragility,
            schema_version=schema_version,
        )

        leaderboard.additional_properties = d
        return leaderboard

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
