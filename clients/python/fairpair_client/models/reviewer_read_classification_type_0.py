from enum import StrEnum


class ReviewerReadClassificationType0(StrEnum):
    GENEROUS = "generous"
    HARSH = "harsh"
    NEUTRAL = "neutral"

    def __str__(self) -> str:
        return str(self.value)
