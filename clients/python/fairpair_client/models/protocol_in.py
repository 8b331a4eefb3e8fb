from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.protocol_in_kind import ProtocolInKind
from ..types import UNSET, Unset

T = TypeVar("T", bound="ProtocolIn")


@_attrs_define
class ProtocolIn:
    """`{kind, pairs | max_pairs}`: pairs for shuffle (2..5), max_pairs for adaptive (1..5).

    Attributes:
        kind (ProtocolInKind | Unset):  Default: ProtocolInKind.SWAP.
        max_pairs (int | None | Unset):
        pairs (int | None | Unset):
    """

    kind: ProtocolInKind | Unset = ProtocolInKind.SWAP
    max_pairs: int | None | Unset = UNSET
    pairs: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        kind: str | Unset = UNSET
        if not isinstance(self.kind, Unset):
            kind = self.kind.value

        max_pairs: int | None | Unset
        if isinstance(self.max_pairs, Unset):
            max_pairs = UNSET
        else:
            max_pairs = self.max_pairs

        pairs: int | None | Unset
        if isinstance(self.pairs, Unset):
            pairs = UNSET
        else:
            pairs = self.pairs

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if kind is not UNSET:
            field_dict["kind"] = kind
        if max_pairs is not UNSET:
            field_dict["max_pairs"] = max_pairs
        if pairs is not UNSET:
            field_dict["pairs"] = pairs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        _kind = d.pop("kind", UNSET)
        kind: ProtocolInKind | Unset
        if isinstance(_kind, Unset):
            kind = UNSET
        else:
            kind = ProtocolInKind(_kind)

        def _parse_max_pairs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_pairs = _parse_max_pairs(d.pop("max_pairs", UNSET))

        def _parse_pairs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        pairs = _parse_pairs(d.pop("pairs", UNSET))

        protocol_in = cls(
            kind=kind,
            max_pairs=max_pairs,
            pairs=pairs,
        )

        return protocol_in
