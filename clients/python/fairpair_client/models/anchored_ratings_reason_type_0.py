from enum import StrEnum


class AnchoredRatingsReasonType0(StrEnum):
    INSUFFICIENT_DATA = "insufficient_data"
    NOT_IDENTIFIED = "not_identified"
    NO_COMPARISONS = "no_comparisons"
    NO_LABELS = "no_labels"
    NO_UNLABELLED = "no_unlabelled"

    def __str__(self) -> str:
        return str(self.value)
