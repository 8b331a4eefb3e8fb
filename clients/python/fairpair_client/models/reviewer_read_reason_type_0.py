from enum import StrEnum


class ReviewerReadReasonType0(StrEnum):
    DISCONNECTED_DESIGN = "disconnected_design"
    INSUFFICIENT_DATA = "insufficient_data"

    def __str__(self) -> str:
        return str(self.value)
