from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.experiment_read import ExperimentRead


T = TypeVar("T", bound="ExperimentList")


@_attrs_define
class ExperimentList:
    """Experiments, newest first.

    Attributes:
        experiments (list[ExperimentRead]):
    """

    experiments: list[ExperimentRead]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        experiments = []
        for experiments_item_data in self.experiments:
            experiments_item = experiments_item_data.to_dict()
            experiments.append(experiments_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "experiments": experiments,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.experiment_read import ExperimentRead  # noqa: PLC0415

        d = dict(src_dict)
        experiments = []
        _experiments = d.pop("experiments")
        for experiments_item_data in _experiments:
            experiments_item = ExperimentRead.from_dict(experiments_item_data)

            experiments.append(experiments_item)

        experiment_list = cls(
            experiments=experiments,
        )

        experiment_list.additional_properties = d
        return experiment_list

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
