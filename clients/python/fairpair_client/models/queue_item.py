from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.queue_item_texts_withheld_type_0 import QueueItemTextsWithheldType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.queue_item_criteria_type_1_item import QueueItemCriteriaType1Item
    from ..models.queue_item_tags import QueueItemTags
    from ..models.queue_lengths import QueueLengths


T = TypeVar("T", bound="QueueItem")


@_attrs_define
class QueueItem:
    """A comparison to label: what was asked and the two responses, never a judge's verdict
    (labelers who saw it would anchor on it).

        Attributes:
            created_at (datetime.datetime):
            criteria (list[QueueItemCriteriaType1Item] | None | str): null when `texts_withheld` is `privacy` (only their
                HMACs are stored)
            id (str):
            lengths (QueueLengths): Response lengths in characters (kept in privacy mode too).
            prompt (None | str): null when `texts_withheld` says why
            reference (None | str):
            response_a (None | str):
            response_b (None | str):
            tags (QueueItemTags): as stored: in privacy mode the keys are clear and the values HMACs
            texts_withheld (None | QueueItemTextsWithheldType0 | Unset): why prompt and responses are null: `privacy`
                (FAIRPAIR_PRIVACY=hash stores only HMACs; a labeler needs the texts from the caller's own records, found by `id`
                or `tags`) or `purged` (a texts-only retention purge removed them); null when shown
    """

    created_at: datetime.datetime
    criteria: list[QueueItemCriteriaType1Item] | None | str
    id: str
    lengths: QueueLengths
    prompt: None | str
    reference: None | str
    response_a: None | str
    response_b: None | str
    tags: QueueItemTags
    texts_withheld: None | QueueItemTextsWithheldType0 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        criteria: list[dict[str, Any]] | None | str
        if isinstance(self.criteria, list):
            criteria = []
            for criteria_type_1_item_data in self.criteria:
                criteria_type_1_item = criteria_type_1_item_data.to_dict()
                criteria.append(criteria_type_1_item)

        else:
            criteria = self.criteria

        id = self.id

        lengths = self.lengths.to_dict()

        prompt: None | str
        prompt = self.prompt

        reference: None | str
        reference = self.reference

        response_a: None | str
        response_a = self.response_a

        response_b: None | str
        response_b = self.response_b

        tags = self.tags.to_dict()

        texts_withheld: None | str | Unset
        if isinstance(self.texts_withheld, Unset):
            texts_withheld = UNSET
        elif isinstance(self.texts_withheld, QueueItemTextsWithheldType0):
            texts_withheld = self.texts_withheld.value
        else:
            texts_withheld = self.texts_withheld

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "criteria": criteria,
                "id": id,
                "lengths": lengths,
                "prompt": prompt,
                "reference": reference,
                "response_a": response_a,
                "response_b": response_b,
                "tags": tags,
            }
        )
        if texts_withheld is not UNSET:
            field_dict["texts_withheld"] = texts_withheld

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.queue_item_criteria_type_1_item import QueueItemCriteriaType1Item  # noqa: PLC0415
        from ..models.queue_item_tags import QueueItemTags  # noqa: PLC0415
        from ..models.queue_lengths import QueueLengths  # noqa: PLC0415

        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_criteria(data: object) -> list[QueueItemCriteriaType1Item] | None | str:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                criteria_type_1 = []
                _criteria_type_1 = data
                for criteria_type_1_item_data in _criteria_type_1:
                    criteria_type_1_item = QueueItemCriteriaType1Item.from_dict(criteria_type_1_item_data)

                    criteria_type_1.append(criteria_type_1_item)

                return criteria_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[QueueItemCriteriaType1Item] | None | str, data)

        criteria = _parse_criteria(d.pop("criteria"))

        id = d.pop("id")

        lengths = QueueLengths.from_dict(d.pop("lengths"))

        def _parse_prompt(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        prompt = _parse_prompt(d.pop("prompt"))

        def _parse_reference(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reference = _parse_reference(d.pop("reference"))

        def _parse_response_a(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        response_a = _parse_response_a(d.pop("response_a"))

        def _parse_response_b(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        response_b = _parse_response_b(d.pop("response_b"))

        tags = QueueItemTags.from_dict(d.pop("tags"))

        def _parse_texts_withheld(data: object) -> None | QueueItemTextsWithheldType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                texts_withheld_type_0 = QueueItemTextsWithheldType0(data)

                return texts_withheld_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | QueueItemTextsWithheldType0 | Unset, data)

        texts_withheld = _parse_texts_withheld(d.pop("texts_withheld", UNSET))

        queue_item = cls(
            created_at=created_at,
            criteria=criteria,
            id=id,
            lengths=lengths,
            prompt=prompt,
            reference=reference,
            response_a=response_a,
            response_b=response_b,
            tags=tags,
            texts_withheld=texts_withheld,
        )

        queue_item.additional_properties = d
        return queue_item

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
