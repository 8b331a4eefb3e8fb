from enum import StrEnum


class HumanWinRateTier(StrEnum):
    HIGH = "high"
    INSUFFICIENT = "insufficient"
    MODERATE = "moderate"
    PRELIMINARY = "preliminary"

    def __str__(self) -> str:
        return str(self.value)
