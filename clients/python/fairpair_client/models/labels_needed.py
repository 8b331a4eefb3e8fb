from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.label_target import LabelTarget


T = TypeVar("T", bound="LabelsNeeded")


@_attrs_define
class LabelsNeeded:
    """A planning figure: at the current variances and λ re-tuned, the unlabelled pool held at its
    size, labels drawn uniformly from the queue. The variances move as labels arrive.

        Attributes:
            targets (list[LabelTarget]):
            planning_figure (bool | Unset):  Default: True.
    """

    targets: list[LabelTarget]
    planning_figure: bool | Unset = True
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        targets = []
        for targets_item_data in self.targets:
            targets_item = targets_item_data.to_dict()
            targets.append(targets_item)

        planning_figure = self.planning_figure

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "targets": targets,
            }
        )
        if planning_figure is not UNSET:
            field_dict["planning_figure"] = planning_figure

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.label_target import LabelTarget  # noqa: PLC0415

        d = dict(src_dict)
        targets = []
        _targets = d.pop("targets")
        for targets_item_data in _targets:
            targets_item = LabelTarget.from_dict(targets_item_data)

            targets.append(targets_item)

        planning_figure = d.pop("planning_figure", UNSET)

        labels_needed = cls(
            targets=targets,
            planning_figure=planning_figure,
        )

        labels_needed.additional_properties = d
        return labels_needed

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
