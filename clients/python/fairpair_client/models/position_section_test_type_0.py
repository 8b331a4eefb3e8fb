from enum import StrEnum


class PositionSectionTestType0(StrEnum):
    BINOMIAL = "binomial"
    MCNEMAR = "mcnemar"

    def __str__(self) -> str:
        return str(self.value)
