from enum import StrEnum


class ReviewerCorrelationReadBandType0(StrEnum):
    MODERATE_NEGATIVE = "moderate_negative"
    MODERATE_POSITIVE = "moderate_positive"
    STRONG_NEGATIVE = "strong_negative"
    STRONG_POSITIVE = "strong_positive"
    WEAK = "weak"

    def __str__(self) -> str:
        return str(self.value)
