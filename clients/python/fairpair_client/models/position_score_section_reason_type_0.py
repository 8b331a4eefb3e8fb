from enum import StrEnum


class PositionScoreSectionReasonType0(StrEnum):
    INSUFFICIENT_DATA = "insufficient_data"
    NOT_IDENTIFIED = "not_identified"

    def __str__(self) -> str:
        return str(self.value)
