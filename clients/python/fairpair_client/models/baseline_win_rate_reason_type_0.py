from enum import StrEnum


class BaselineWinRateReasonType0(StrEnum):
    INSUFFICIENT_DATA = "insufficient_data"
    SEPARATION = "separation"

    def __str__(self) -> str:
        return str(self.value)
