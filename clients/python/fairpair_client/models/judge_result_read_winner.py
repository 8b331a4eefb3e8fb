from enum import StrEnum


class JudgeResultReadWinner(StrEnum):
    A = "A"
    B = "B"
    TIE = "tie"

    def __str__(self) -> str:
        return str(self.value)
