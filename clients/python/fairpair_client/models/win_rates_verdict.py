from enum import StrEnum


class WinRatesVerdict(StrEnum):
    FINAL = "final"
    JUDGE = "judge"

    def __str__(self) -> str:
        return str(self.value)
