from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.probe_change import ProbeChange
    from ..models.probe_figure import ProbeFigure


T = TypeVar("T", bound="Card")


@_attrs_define
class Card:
    """A judge version's card from its latest battery run.

    Attributes:
        changes (list[ProbeChange]):
        complete (bool):
        figures (list[ProbeFigure]):
        items (int):
        items_done (int):
        previous_version (int | None):
        provider_models (list[str]):
        run_at (datetime.datetime | None):
        run_id (str):
        version (int):
    """

    changes: list[ProbeChange]
    complete: bool
    figures: list[ProbeFigure]
    items: int
    items_done: int
    previous_version: int | None
    provider_models: list[str]
    run_at: datetime.datetime | None
    run_id: str
    version: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        changes = []
        for changes_item_data in self.changes:
            changes_item = changes_item_data.to_dict()
            changes.append(changes_item)

        complete = self.complete

        figures = []
        for figures_item_data in self.figures:
            figures_item = figures_item_data.to_dict()
            figures.append(figures_item)

        items = self.items

        items_done = self.items_done

        previous_version: int | None
        previous_version = self.previous_version

        provider_models = self.provider_models

        run_at: None | str
        if isinstance(self.run_at, datetime.datetime):
            run_at = self.run_at.isoformat()
        else:
            run_at = self.run_at

        run_id = self.run_id

        version = self.version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "changes": changes,
                "complete": complete,
                "figures": figures,
                "items": items,
                "items_done": items_done,
                "previous_version": previous_version,
                "provider_models": provider_models,
                "run_at": run_at,
                "run_id": run_id,
                "version": version,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.probe_change import ProbeChange  # noqa: PLC0415
        from ..models.probe_figure import ProbeFigure  # noqa: PLC0415

        d = dict(src_dict)
        changes = []
        _changes = d.pop("changes")
        for changes_item_data in _changes:
            changes_item = ProbeChange.from_dict(changes_item_data)

            changes.append(changes_item)

        complete = d.pop("complete")

        figures = []
        _figures = d.pop("figures")
        for figures_item_data in _figures:
            figures_item = ProbeFigure.from_dict(figures_item_data)

            figures.append(figures_item)

        items = d.pop("items")

        items_done = d.pop("items_done")

        def _parse_previous_version(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        previous_version = _parse_previous_version(d.pop("previous_version"))

        provider_models = cast(list[str], d.pop("provider_models"))

        def _parse_run_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                run_at_type_0 = datetime.datetime.fromisoformat(data)

                return run_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        run_at = _parse_run_at(d.pop("run_at"))

        run_id = d.pop("run_id")

        version = d.pop("version")

        card = cls(
            changes=changes,
            complete=complete,
            figures=figures,
            items=items,
            items_done=items_done,
            previous_version=previous_version,
            provider_models=provider_models,
            run_at=run_at,
            run_id=run_id,
            version=version,
        )

        card.additional_properties = d
        return card

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
