from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.card import Card


T = TypeVar("T", bound="CardRead")


@_attrs_define
class CardRead:
    """The card of a judge version, or null and why.

    Attributes:
        card (Card | None):
        judge (str):
        version (int):
        reason (None | str | Unset):
    """

    card: Card | None
    judge: str
    version: int
    reason: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.card import Card  # noqa: PLC0415

        card: dict[str, Any] | None
        if isinstance(self.card, Card):
            card = self.card.to_dict()
        else:
            card = self.card

        judge = self.judge

        version = self.version

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "card": card,
                "judge": judge,
                "version": version,
            }
        )
        if reason is not UNSET:
            field_dict["reason"] = reason

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.card import Card  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_card(data: object) -> Card | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                card_type_0 = Card.from_dict(data)

                return card_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Card | None, data)

        card = _parse_card(d.pop("card"))

        judge = d.pop("judge")

        version = d.pop("version")

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        card_read = cls(
            card=card,
            judge=judge,
            version=version,
            reason=reason,
        )

        card_read.additional_properties = d
        return card_read

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
