from enum import StrEnum


class OffsetReadClassificationType0(StrEnum):
    GENEROUS = "generous"
    HARSH = "harsh"
    NEUTRAL = "neutral"

    def __str__(self) -> str:
        return str(self.value)
