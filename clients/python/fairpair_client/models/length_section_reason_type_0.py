from enum import StrEnum


class LengthSectionReasonType0(StrEnum):
    INSUFFICIENT_DATA = "insufficient_data"
    NO_VARIATION = "no_variation"

    def __str__(self) -> str:
        return str(self.value)
