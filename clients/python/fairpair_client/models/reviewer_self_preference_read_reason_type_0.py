from enum import StrEnum


class ReviewerSelfPreferenceReadReasonType0(StrEnum):
    INSUFFICIENT_DATA = "insufficient_data"
    NO_AUDIT_DATA = "no_audit_data"

    def __str__(self) -> str:
        return str(self.value)
