from enum import StrEnum


class ModelStandingAnchoredReasonType0(StrEnum):
    INSUFFICIENT_DATA = "insufficient_data"
    NO_COMPARISONS = "no_comparisons"
    NO_LABELS = "no_labels"

    def __str__(self) -> str:
        return str(self.value)
