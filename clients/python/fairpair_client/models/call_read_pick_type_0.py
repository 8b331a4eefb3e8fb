from enum import StrEnum


class CallReadPickType0(StrEnum):
    FIRST = "first"
    SECOND = "second"
    TIE = "tie"

    def __str__(self) -> str:
        return str(self.value)
