from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.human_agreement_section_tier import HumanAgreementSectionTier
from ..types import UNSET, Unset

T = TypeVar("T", bound="HumanAgreementSection")


@_attrs_define
class HumanAgreementSection:
    """Agreement of a judge (or the panel's final verdict) with the gold labels.

    Attributes:
        call_accuracy (float | None):
        call_accuracy_ci95 (list[float] | None): cluster bootstrap over comparisons
        cohen_kappa (float | None):
        disputed (int): labelled comparisons left out because the labels split
        from_queue_share (float | None):
        labeler_agreement (float | None): share of comparisons with ≥ 2 labelers on which all labelers agree
        n_calls (int): parsed design calls on gold-labelled comparisons
        n_comparisons (int): gold-labelled comparisons with a parsed design call (the tier's unit)
        n_used (int):
        n_verdicts (int): gold-labelled comparisons with a result
        reason (Literal['insufficient_data'] | None):
        sampled (bool): the bootstrap used only the most recent n_used comparisons
        tier (HumanAgreementSectionTier):
        verdict_accuracy (float | None):
        verdict_accuracy_ci95 (list[float] | None):
        from_queue_share_ci95 (list[float] | None | Unset): Wilson
        labeler_agreement_ci95 (list[float] | None | Unset): Wilson
    """

    call_accuracy: float | None
    call_accuracy_ci95: list[float] | None
    cohen_kappa: float | None
    disputed: int
    from_queue_share: float | None
    labeler_agreement: float | None
    n_calls: int
    n_comparisons: int
    n_used: int
    n_verdicts: int
    reason: Literal["insufficient_data"] | None
    sampled: bool
    tier: HumanAgreementSectionTier
    verdict_accuracy: float | None
    verdict_accuracy_ci95: list[float] | None
    from_queue_share_ci95: list[float] | None | Unset = UNSET
    labeler_agreement_ci95: list[float] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        call_accuracy: float | None
        call_accuracy = self.call_accuracy

        call_accuracy_ci95: list[float] | None
        if isinstance(self.call_accuracy_ci95, list):
            call_accuracy_ci95 = []
            for call_accuracy_ci95_type_0_item_data in self.call_accuracy_ci95:
                call_accuracy_ci95_type_0_item: float
                call_accuracy_ci95_type_0_item = call_accuracy_ci95_type_0_item_data
                call_accuracy_ci95.append(call_accuracy_ci95_type_0_item)

        else:
            call_accuracy_ci95 = self.call_accuracy_ci95

        cohen_kappa: float | None
        cohen_kappa = self.cohen_kappa

        disputed = self.disputed

        from_queue_share: float | None
        from_queue_share = self.from_queue_share

        labeler_agreement: float | None
        labeler_agreement = self.labeler_agreement

        n_calls = self.n_calls

        n_comparisons = self.n_comparisons

        n_used = self.n_used

        n_verdicts = self.n_verdicts

        reason: Literal["insufficient_data"] | None
        reason = self.reason

        sampled = self.sampled

        tier = self.tier.value

        verdict_accuracy: float | None
        verdict_accuracy = self.verdict_accuracy

        verdict_accuracy_ci95: list[float] | None
        if isinstance(self.verdict_accuracy_ci95, list):
            verdict_accuracy_ci95 = []
            for verdict_accuracy_ci95_type_0_item_data in self.verdict_accuracy_ci95:
                verdict_accuracy_ci95_type_0_item: float
                verdict_accuracy_ci95_type_0_item = verdict_accuracy_ci95_type_0_item_data
                verdict_accuracy_ci95.append(verdict_accuracy_ci95_type_0_item)

        else:
            verdict_accuracy_ci95 = self.verdict_accuracy_ci95

        from_queue_share_ci95: list[float] | None | Unset
        if isinstance(self.from_queue_share_ci95, Unset):
            from_queue_share_ci95 = UNSET
        elif isinstance(self.from_queue_share_ci95, list):
            from_queue_share_ci95 = []
            for from_queue_share_ci95_type_0_item_data in self.from_queue_share_ci95:
                from_queue_share_ci95_type_0_item: float
                from_queue_share_ci95_type_0_item = from_queue_share_ci95_type_0_item_data
                from_queue_share_ci95.append(from_queue_share_ci95_type_0_item)

        else:
            from_queue_share_ci95 = self.from_queue_share_ci95

        labeler_agreement_ci95: list[float] | None | Unset
        if isinstance(self.labeler_agreement_ci95, Unset):
            labeler_agreement_ci95 = UNSET
        elif isinstance(self.labeler_agreement_ci95, list):
            labeler_agreement_ci95 = []
            for labeler_agreement_ci95_type_0_item_data in self.labeler_agreement_ci95:
                labeler_agreement_ci95_type_0_item: float
                labeler_agreement_ci95_type_0_item = labeler_agreement_ci95_type_0_item_data
                labeler_agreement_ci95.append(labeler_agreement_ci95_type_0_item)

        else:
            labeler_agreement_ci95 = self.labeler_agreement_ci95

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "call_accuracy": call_accuracy,
                "call_accuracy_ci95": call_accuracy_ci95,
                "cohen_kappa": cohen_kappa,
                "disputed": disputed,
                "from_queue_share": from_queue_share,
                "labeler_agreement": labeler_agreement,
                "n_calls": n_calls,
                "n_comparisons": n_comparisons,
                "n_used": n_used,
                "n_verdicts": n_verdicts,
                "reason": reason,
                "sampled": sampled,
                "tier": tier,
                "verdict_accuracy": verdict_accuracy,
                "verdict_accuracy_ci95": verdict_accuracy_ci95,
            }
        )
        if from_queue_share_ci95 is not UNSET:
            field_dict["from_queue_share_ci95"] = from_queue_share_ci95
        if labeler_agreement_ci95 is not UNSET:
            field_dict["labeler_agreement_ci95"] = labeler_agreement_ci95

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_call_accuracy(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        call_accuracy = _parse_call_accuracy(d.pop("call_accuracy"))

        def _parse_call_accuracy_ci95(data: object) -> list[float] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                call_accuracy_ci95_type_0 = []
                _call_accuracy_ci95_type_0 = data
                for call_accuracy_ci95_type_0_item_data in _call_accuracy_ci95_type_0:

                    def _parse_call_accuracy_ci95_type_0_item(data: object) -> float:
                        return cast(float, data)

                    call_accuracy_ci95_type_0_item = _parse_call_accuracy_ci95_type_0_item(
                        call_accuracy_ci95_type_0_item_data
                    )

                    call_accuracy_ci95_type_0.append(call_accuracy_ci95_type_0_item)

                return call_accuracy_ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None, data)

        call_accuracy_ci95 = _parse_call_accuracy_ci95(d.pop("call_accuracy_ci95"))

        def _parse_cohen_kappa(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        cohen_kappa = _parse_cohen_kappa(d.pop("cohen_kappa"))

        disputed = d.pop("disputed")

        def _parse_from_queue_share(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        from_queue_share = _parse_from_queue_share(d.pop("from_queue_share"))

        def _parse_labeler_agreement(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        labeler_agreement = _parse_labeler_agreement(d.pop("labeler_agreement"))

        n_calls = d.pop("n_calls")

        n_comparisons = d.pop("n_comparisons")

        n_used = d.pop("n_used")

        n_verdicts = d.pop("n_verdicts")

        def _parse_reason(data: object) -> Literal["insufficient_data"] | None:
            if data is None:
                return data
            reason_type_0 = cast(Literal["insufficient_data"], data)
            if reason_type_0 != "insufficient_data":
                raise ValueError(f"reason_type_0 must match const 'insufficient_data', got '{reason_type_0}'")
            return reason_type_0
            return cast(Literal["insufficient_data"] | None, data)

        reason = _parse_reason(d.pop("reason"))

        sampled = d.pop("sampled")

        tier = HumanAgreementSectionTier(d.pop("tier"))

        def _parse_verdict_accuracy(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        verdict_accuracy = _parse_verdict_accuracy(d.pop("verdict_accuracy"))

        def _parse_verdict_accuracy_ci95(data: object) -> list[float] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                verdict_accuracy_ci95_type_0 = []
                _verdict_accuracy_ci95_type_0 = data
                for verdict_accuracy_ci95_type_0_item_data in _verdict_accuracy_ci95_type_0:

                    def _parse_verdict_accuracy_ci95_type_0_item(data: object) -> float:
                        return cast(float, data)

                    verdict_accuracy_ci95_type_0_item = _parse_verdict_accuracy_ci95_type_0_item(
                        verdict_accuracy_ci95_type_0_item_data
                    )

                    verdict_accuracy_ci95_type_0.append(verdict_accuracy_ci95_type_0_item)

                return verdict_accuracy_ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None, data)

        verdict_accuracy_ci95 = _parse_verdict_accuracy_ci95(d.pop("verdict_accuracy_ci95"))

        def _parse_from_queue_share_ci95(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                from_queue_share_ci95_type_0 = []
                _from_queue_share_ci95_type_0 = data
                for from_queue_share_ci95_type_0_item_data in _from_queue_share_ci95_type_0:

                    def _parse_from_queue_share_ci95_type_0_item(data: object) -> float:
                        return cast(float, data)

                    from_queue_share_ci95_type_0_item = _parse_from_queue_share_ci95_type_0_item(
                        from_queue_share_ci95_type_0_item_data
                    )

                    from_queue_share_ci95_type_0.append(from_queue_share_ci95_type_0_item)

                return from_queue_share_ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None | Unset, data)

        from_queue_share_ci95 = _parse_from_queue_share_ci95(d.pop("from_queue_share_ci95", UNSET))

        def _parse_labeler_agreement_ci95(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                labeler_agreement_ci95_type_0 = []
                _labeler_agreement_ci95_type_0 = data
                for labeler_agreement_ci95_type_0_item_data in _labeler_agreement_ci95_type_0:

                    def _parse_labeler_agreement_ci95_type_0_item(data: object) -> float:
                        return cast(float, data)

                    labeler_agreement_ci95_type_0_item = _parse_labeler_agreement_ci95_type_0_item(
                        labeler_agreement_ci95_type_0_item_data
                    )

                    labeler_agreement_ci95_type_0.append(labeler_agreement_ci95_type_0_item)

                return labeler_agreement_ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None | Unset, data)

        labeler_agreement_ci95 = _parse_labeler_agreement_ci95(d.pop("labeler_agreement_ci95", UNSET))

        human_agreement_section = cls(
            call_accuracy=call_accuracy,
            call_accuracy_ci95=call_accuracy_ci95,
            cohen_kappa=cohen_kappa,
            disputed=disputed,
            from_queue_share=from_queue_share,
            labeler_agreement=labeler_agreement,
            n_calls=n_calls,
            n_comparisons=n_comparisons,
            n_used=n_used,
            n_verdicts=n_verdicts,
            reason=reason,
            sampled=sampled,
            tier=tier,
            verdict_accuracy=verdict_accuracy,
            verdict_accuracy_ci95=verdict_accuracy_ci95,
            from_queue_share_ci95=from_queue_share_ci95,
            labeler_agreement_ci95=labeler_agreement_ci95,
        )

        human_agreement_section.additional_properties = d
        return human_agreement_section

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
