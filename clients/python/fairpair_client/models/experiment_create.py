from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.experiment_item_in import ExperimentItemIn
    from ..models.protocol_in import ProtocolIn


T = TypeVar("T", bound="ExperimentCreate")


@_attrs_define
class ExperimentCreate:
    """Is the candidate better than the baseline? Judged until the answer is known.

    Attributes:
        baseline (str): the baseline's model name, as in response_a.model
        candidate (str): the candidate's model name
        name (str):
        alpha (float | Unset): the error rate the decision allows Default: 0.05.
        items (list[ExperimentItemIn] | None | Unset): judged by the service in a seeded random order until decided;
            without items, comparisons join by `POST /v1/compare` with `experiment`
        judges (list[str] | None | Unset):
        margin (float | Unset): the smallest win-rate difference from 0.5 worth acting on; within it the two are
            `equivalent` Default: 0.0.
        protocol (ProtocolIn | Unset): `{kind, pairs | max_pairs}`: pairs for shuffle (2..5), max_pairs for adaptive
            (1..5).
        seed (int | Unset): orders the items and their slots Default: 0.
    """

    baseline: str
    candidate: str
    name: str
    alpha: float | Unset = 0.05
    items: list[ExperimentItemIn] | None | Unset = UNSET
    judges: list[str] | None | Unset = UNSET
    margin: float | Unset = 0.0
    protocol: ProtocolIn | Unset = UNSET
    seed: int | Unset = 0

    def to_dict(self) -> dict[str, Any]:
        baseline = self.baseline

        candidate = self.candidate

        name = self.name

        alpha = self.alpha

        items: list[dict[str, Any]] | None | Unset
        if isinstance(self.items, Unset):
            items = UNSET
        elif isinstance(self.items, list):
            items = []
            for items_type_0_item_data in self.items:
                items_type_0_item = items_type_0_item_data.to_dict()
                items.append(items_type_0_item)

        else:
            items = self.items

        judges: list[str] | None | Unset
        if isinstance(self.judges, Unset):
            judges = UNSET
        elif isinstance(self.judges, list):
            judges = self.judges

        else:
            judges = self.judges

        margin = self.margin

        protocol: dict[str, Any] | Unset = UNSET
        if not isinstance(self.protocol, Unset):
            protocol = self.protocol.to_dict()

        seed = self.seed

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "baseline": baseline,
                "candidate": candidate,
                "name": name,
            }
        )
        if alpha is not UNSET:
            field_dict["alpha"] = alpha
        if items is not UNSET:
            field_dict["items"] = items
        if judges is not UNSET:
            field_dict["judges"] = judges
        if margin is not UNSET:
            field_dict["margin"] = margin
        if protocol is not UNSET:
            field_dict["protocol"] = protocol
        if seed is not UNSET:
            field_dict["seed"] = seed

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.experiment_item_in import ExperimentItemIn  # noqa: PLC0415
        from ..models.protocol_in import ProtocolIn  # noqa: PLC0415

        d = dict(src_dict)
        baseline = d.pop("baseline")

        candidate = d.pop("candidate")

        name = d.pop("name")

        alpha = d.pop("alpha", UNSET)

        def _parse_items(data: object) -> list[ExperimentItemIn] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                items_type_0 = []
                _items_type_0 = data
                for items_type_0_item_data in _items_type_0:
                    items_type_0_item = ExperimentItemIn.from_dict(items_type_0_item_data)

                    items_type_0.append(items_type_0_item)

                return items_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ExperimentItemIn] | None | Unset, data)

        items = _parse_items(d.pop("items", UNSET))

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

        margin = d.pop("margin", UNSET)

        _protocol = d.pop("protocol", UNSET)
        protocol: ProtocolIn | Unset
        if isinstance(_protocol, Unset):
            protocol = UNSET
        else:
            protocol = ProtocolIn.from_dict(_protocol)

        seed = d.pop("seed", UNSET)

        experiment_create = cls(
            baseline=baseline,
            candidate=candidate,
            name=name,
            alpha=alpha,
            items=items,
            judges=judges,
            margin=margin,
            protocol=protocol,
            seed=seed,
        )

        return experiment_create
