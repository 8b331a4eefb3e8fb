from enum import StrEnum


class LabelReadShownFirstType0(StrEnum):
    A = "A"
    B = "B"

    def __str__(self) -> str:
        return str(self.value)
