from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.judge_read_provider_type_0 import JudgeReadProviderType0
from ..models.judge_read_source import JudgeReadSource
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.judge_fields import JudgeFields
    from ..models.judge_version_read import JudgeVersionRead


T = TypeVar("T", bound="JudgeRead")


@_attrs_define
class JudgeRead:
    """A judge as the API shows it: never its key.

    Attributes:
        available (bool): false when this process cannot build the judge
        config (JudgeFields | None): null when the stored row no longer validates
        config_hash (str):
        default (bool):
        enabled (bool):
        family (None | str): the effective family the self-preference guard uses: `family` as configured, else the
            family of the first FAIRPAIR_FAMILY_PREFIXES prefix of `model`; null when unknown (`config.family` shows what
            was configured)
        has_api_key (bool):
        json_mode (bool):
        logprobs (bool):
        model (str):
        name (str):
        provider (JudgeReadProviderType0 | None): null when the stored row no longer validates
        source (JudgeReadSource):
        version (int):
        unavailable_reason (None | str | Unset): why it is unavailable
        versions (list[JudgeVersionRead] | None | Unset):
    """

    available: bool
    config: JudgeFields | None
    config_hash: str
    default: bool
    enabled: bool
    family: None | str
    has_api_key: bool
    json_mode: bool
    logprobs: bool
    model: str
    name: str
    provider: JudgeReadProviderType0 | None
    source: JudgeReadSource
    version: int
    unavailable_reason: None | str | Unset = UNSET
    versions: list[JudgeVersionRead] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.judge_fields import JudgeFields  # noqa: PLC0415

        available = self.available

        config: dict[str, Any] | None
        if isinstance(self.config, JudgeFields):
            config = self.config.to_dict()
        else:
            config = self.config

        config_hash = self.config_hash

        default = self.default

        enabled = self.enabled

        family: None | str
        family = self.family

        has_api_key = self.has_api_key

        json_mode = self.json_mode

        logprobs = self.logprobs

        model = self.model

        name = self.name

        provider: None | str
        if isinstance(self.provider, JudgeReadProviderType0):
            provider = self.provider.value
        else:
            provider = self.provider

        source = self.source.value

        version = self.version

        unavailable_reason: None | str | Unset
        if isinstance(self.unavailable_reason, Unset):
            unavailable_reason = UNSET
        else:
            unavailable_reason = self.unavailable_reason

        versions: list[dict[str, Any]] | None | Unset
        if isinstance(self.versions, Unset):
            versions = UNSET
        elif isinstance(self.versions, list):
            versions = []
            for versions_type_0_item_data in self.versions:
                versions_type_0_item = versions_type_0_item_data.to_dict()
                versions.append(versions_type_0_item)

        else:
            versions = self.versions

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "available": available,
                "config": config,
                "config_hash": config_hash,
                "default": default,
                "enabled": enabled,
                "family": family,
                "has_api_key": has_api_key,
                "json_mode": json_mode,
                "logprobs": logprobs,
                "model": model,
                "name": name,
                "provider": provider,
                "source": source,
                "version": version,
            }
        )
        if unavailable_reason is not UNSET:
            field_dict["unavailable_reason"] = unavailable_reason
        if versions is not UNSET:
            field_dict["versions"] = versions

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.judge_fields import JudgeFields  # noqa: PLC0415
        from ..models.judge_version_read import JudgeVersionRead  # noqa: PLC0415

        d = dict(src_dict)
        available = d.pop("available")

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

        default = d.pop("default")

        enabled = d.pop("enabled")

        def _parse_family(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        family = _parse_family(d.pop("family"))

        has_api_key = d.pop("has_api_key")

        json_mode = d.pop("json_mode")

        logprobs = d.pop("logprobs")

        model = d.pop("model")

        name = d.pop("name")

        def _parse_provider(data: object) -> JudgeReadProviderType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                provider_type_0 = JudgeReadProviderType0(data)

                return provider_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JudgeReadProviderType0 | None, data)

        provider = _parse_provider(d.pop("provider"))

        source = JudgeReadSource(d.pop("source"))

        version = d.pop("version")

        def _parse_unavailable_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        unavailable_reason = _parse_unavailable_reason(d.pop("unavailable_reason", UNSET))

        def _parse_versions(data: object) -> list[JudgeVersionRead] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                versions_type_0 = []
                _versions_type_0 = data
                for versions_type_0_item_data in _versions_type_0:
                    versions_type_0_item = JudgeVersionRead.from_dict(versions_type_0_item_data)

                    versions_type_0.append(versions_type_0_item)

                return versions_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[JudgeVersionRead] | None | Unset, data)

        versions = _parse_versions(d.pop("versions", UNSET))

        judge_read = cls(
            available=available,
            config=config,
            config_hash=config_hash,
            default=default,
            enabled=enabled,
            family=family,
            has_api_key=has_api_key,
            json_mode=json_mode,
            logprobs=logprobs,
            model=model,
            name=name,
            provider=provider,
            source=source,
            version=version,
            unavailable_reason=unavailable_reason,
            versions=versions,
        )

        judge_read.additional_properties = d
        return judge_read

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
