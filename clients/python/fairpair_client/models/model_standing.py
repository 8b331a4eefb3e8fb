from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.model_standing_anchored_reason_type_0 import ModelStandingAnchoredReasonType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.anchored_baseline_win_rate import AnchoredBaselineWinRate
    from ..models.baseline_win_rate import BaselineWinRate


T = TypeVar("T", bound="ModelStanding")


@_attrs_define
class ModelStanding:
    """One generating model: Bradley-Terry rating, record, and standing against the baseline.

    Attributes:
        ci95 (list[float] | None): percentile bootstrap over comparisons
        games (int):
        losses (int):
        model (str):
        rank (int | None): 1 = highest rating; null when not rated
        rating (float | None): 1000 + 400·θ/ln 10
        reason (Literal['disconnected'] | None):
        theta (float | None): Bradley-Terry strength, mean 0 over rated models
        ties (int):
        vs_baseline (BaselineWinRate | None): null without a baseline and for the baseline itself
        wins (int):
        anchored_ci95 (list[float] | None | Unset): CLT interval of `anchored_rating`
        anchored_rating (float | None | Unset): PPI++ Bradley-Terry rating (same scale); null: see `anchored_ratings`
        anchored_reason (ModelStandingAnchoredReasonType0 | None | Unset): why `anchored_win_rate` is null when a
            baseline was given
        anchored_win_rate (AnchoredBaselineWinRate | None | Unset): null without a baseline, for the baseline itself, or
            with a reason
    """

    ci95: list[float] | None
    games: int
    losses: int
    model: str
    rank: int | None
    rating: float | None
    reason: Literal["disconnected"] | None
    theta: float | None
    ties: int
    vs_baseline: BaselineWinRate | None
    wins: int
    anchored_ci95: list[float] | None | Unset = UNSET
    anchored_rating: float | None | Unset = UNSET
    anchored_reason: ModelStandingAnchoredReasonType0 | None | Unset = UNSET
    anchored_win_rate: AnchoredBaselineWinRate | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.anchored_baseline_win_rate import AnchoredBaselineWinRate  # noqa: PLC0415
        from ..models.baseline_win_rate import BaselineWinRate  # noqa: PLC0415

        ci95: list[float] | None
        if isinstance(self.ci95, list):
            ci95 = []
            for ci95_type_0_item_data in self.ci95:
                ci95_type_0_item: float
                ci95_type_0_item = ci95_type_0_item_data
                ci95.append(ci95_type_0_item)

        else:
            ci95 = self.ci95

        games = self.games

        losses = self.losses

        model = self.model

        rank: int | None
        rank = self.rank

        rating: float | None
        rating = self.rating

        reason: Literal["disconnected"] | None
        reason = self.reason

        theta: float | None
        theta = self.theta

        ties = self.ties

        vs_baseline: dict[str, Any] | None
        if isinstance(self.vs_baseline, BaselineWinRate):
            vs_baseline = self.vs_baseline.to_dict()
        else:
            vs_baseline = self.vs_baseline

        wins = self.wins

        anchored_ci95: list[float] | None | Unset
        if isinstance(self.anchored_ci95, Unset):
            anchored_ci95 = UNSET
        elif isinstance(self.anchored_ci95, list):
            anchored_ci95 = []
            for anchored_ci95_type_0_item_data in self.anchored_ci95:
                anchored_ci95_type_0_item: float
                anchored_ci95_type_0_item = anchored_ci95_type_0_item_data
                anchored_ci95.append(anchored_ci95_type_0_item)

        else:
            anchored_ci95 = self.anchored_ci95

        anchored_rating: float | None | Unset
        if isinstance(self.anchored_rating, Unset):
            anchored_rating = UNSET
        else:
            anchored_rating = self.anchored_rating

        anchored_reason: None | str | Unset
        if isinstance(self.anchored_reason, Unset):
            anchored_reason = UNSET
        elif isinstance(self.anchored_reason, ModelStandingAnchoredReasonType0):
            anchored_reason = self.anchored_reason.value
        else:
            anchored_reason = self.anchored_reason

        anchored_win_rate: dict[str, Any] | None | Unset
        if isinstance(self.anchored_win_rate, Unset):
            anchored_win_rate = UNSET
        elif isinstance(self.anchored_win_rate, AnchoredBaselineWinRate):
            anchored_win_rate = self.anchored_win_rate.to_dict()
        else:
            anchored_win_rate = self.anchored_win_rate

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ci95": ci95,
                "games": games,
                "losses": losses,
                "model": model,
                "rank": rank,
                "rating": rating,
                "reason": reason,
                "theta": theta,
                "ties": ties,
                "vs_baseline": vs_baseline,
                "wins": wins,
            }
        )
        if anchored_ci95 is not UNSET:
            field_dict["anchored_ci95"] = anchored_ci95
        if anchored_rating is not UNSET:
            field_dict["anchored_rating"] = anchored_rating
        if anchored_reason is not UNSET:
            field_dict["anchored_reason"] = anchored_reason
        if anchored_win_rate is not UNSET:
            field_dict["anchored_win_rate"] = anchored_win_rate

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.anchored_baseline_win_rate import AnchoredBaselineWinRate  # noqa: PLC0415
        from ..models.baseline_win_rate import BaselineWinRate  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_ci95(data: object) -> list[float] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                ci95_type_0 = []
                _ci95_type_0 = data
                for ci95_type_0_item_data in _ci95_type_0:

                    def _parse_ci95_type_0_item(data: object) -> float:
                        return cast(float, data)

                    ci95_type_0_item = _parse_ci95_type_0_item(ci95_type_0_item_data)

                    ci95_type_0.append(ci95_type_0_item)

                return ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None, data)

        ci95 = _parse_ci95(d.pop("ci95"))

        games = d.pop("games")

        losses = d.pop("losses")

        model = d.pop("model")

        def _parse_rank(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        rank = _parse_rank(d.pop("rank"))

        def _parse_rating(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        rating = _parse_rating(d.pop("rating"))

        def _parse_reason(data: object) -> Literal["disconnected"] | None:
            if data is None:
                return data
            reason_type_0 = cast(Literal["disconnected"], data)
            if reason_type_0 != "disconnected":
                raise ValueError(f"reason_type_0 must match const 'disconnected', got '{reason_type_0}'")
            return reason_type_0
            return cast(Literal["disconnected"] | None, data)

        reason = _parse_reason(d.pop("reason"))

        def _parse_theta(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        theta = _parse_theta(d.pop("theta"))

        ties = d.pop("ties")

        def _parse_vs_baseline(data: object) -> BaselineWinRate | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                vs_baseline_type_0 = BaselineWinRate.from_dict(data)

                return vs_baseline_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BaselineWinRate | None, data)

        vs_baseline = _parse_vs_baseline(d.pop("vs_baseline"))

        wins = d.pop("wins")

        def _parse_anchored_ci95(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                anchored_ci95_type_0 = []
                _anchored_ci95_type_0 = data
                for anchored_ci95_type_0_item_data in _anchored_ci95_type_0:

                    def _parse_anchored_ci95_type_0_item(data: object) -> float:
                        return cast(float, data)

                    anchored_ci95_type_0_item = _parse_anchored_ci95_type_0_item(anchored_ci95_type_0_item_data)

                    anchored_ci95_type_0.append(anchored_ci95_type_0_item)

                return anchored_ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None | Unset, data)

        anchored_ci95 = _parse_anchored_ci95(d.pop("anchored_ci95", UNSET))

        def _parse_anchored_rating(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        anchored_rating = _parse_anchored_rating(d.pop("anchored_rating", UNSET))

        def _parse_anchored_reason(data: object) -> ModelStandingAnchoredReasonType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                anchored_reason_type_0 = ModelStandingAnchoredReasonType0(data)

                return anchored_reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ModelStandingAnchoredReasonType0 | None | Unset, data)

        anchored_reason = _parse_anchored_reason(d.pop("anchored_reason", UNSET))

        def _parse_anchored_win_rate(data: object) -> AnchoredBaselineWinRate | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                anchored_win_rate_type_0 = AnchoredBaselineWinRate.from_dict(data)

                return anchored_win_rate_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AnchoredBaselineWinRate | None | Unset, data)

        anchored_win_rate = _parse_anchored_win_rate(d.pop("anchored_win_rate", UNSET))

        model_standing = cls(
            ci95=ci95,
            games=games,
            losses=losses,
            model=model,
            rank=rank,
            rating=rating,
            reason=reason,
            theta=theta,
            ties=ties,
            vs_baseline=vs_baseline,
            wins=wins,
            anchored_ci95=anchored_ci95,
            anchored_rating=anchored_rating,
            anchored_reason=anchored_reason,
            anchored_win_rate=anchored_win_rate,
        )

        model_standing.additional_properties = d
        return model_standing

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
