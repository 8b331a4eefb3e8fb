from enum import StrEnum


class LabelInShownFirstType0(StrEnum):
    A = "A"
    B = "B"

    def __str__(self) -> str:
        return str(self.value)
