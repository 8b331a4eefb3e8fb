from enum import StrEnum


class JudgeAltTestReasonType0(StrEnum):
    NO_LABELS = "no_labels"
    TOO_FEW_LABELERS = "too_few_labelers"

    def __str__(self) -> str:
        return str(self.value)
