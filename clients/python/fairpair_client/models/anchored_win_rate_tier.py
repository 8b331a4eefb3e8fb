from enum import StrEnum


class AnchoredWinRateTier(StrEnum):
    HIGH = "high"
    INSUFFICIENT = "insufficient"
    MODERATE = "moderate"
    PRELIMINARY = "preliminary"

    def __str__(self) -> str:
        return str(self.value)
