from enum import StrEnum


class JudgeWinRateTier(StrEnum):
    HIGH = "high"
    INSUFFICIENT = "insufficient"
    MODERATE = "moderate"
    PRELIMINARY = "preliminary"

    def __str__(self) -> str:
        return str(self.value)
