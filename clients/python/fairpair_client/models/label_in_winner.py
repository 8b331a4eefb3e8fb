from enum import StrEnum


class LabelInWinner(StrEnum):
    A = "A"
    B = "B"
    TIE = "tie"

    def __str__(self) -> str:
        return str(self.value)
