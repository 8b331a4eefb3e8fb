from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.judge_fields import JudgeFields


T = TypeVar("T", bound="JudgeVersionRead")


@_attrs_define
class JudgeVersionRead:
    """One version of a judge.

    Attributes:
        config (JudgeFields | None): null when the stored row no longer validates
        config_hash (str):
        created_at (datetime.datetime):
        version (int):
    """

    config: JudgeFields | None
    config_hash: str
    created_at: datetime.datetime
    version: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.judge_fields import JudgeFields  # noqa: PLC0415

        config: dict[str, Any] | None
        if isinstance(self.config, JudgeFields):
            config = self.config.to_dict()
        else:
            config = self.config

        config_hash = self.config_hash

        created_at = self.created_at.isoformat()

        version = self.version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "config": config,
                "config_hash": config_hash,
                "created_at": created_at,
                "version": version,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.judge_fields import JudgeFields  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_config(data: object) -> JudgeFields | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                config_type_0 = JudgeFields.from_dict(data)

                return config_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JudgeFields | None, data)

        config = _parse_config(d.pop("config"))

        config_hash = d.pop("config_hash")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        version = d.pop("version")

        judge_version_read = cls(
            config=config,
            config_hash=config_hash,
            created_at=created_at,
            version=version,
        )

        judge_version_read.additional_properties = d
        return judge_version_read

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
