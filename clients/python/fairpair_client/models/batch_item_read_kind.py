from enum import StrEnum


class BatchItemReadKind(StrEnum):
    COMPARE = "compare"
    SCORE = "score"

    def __str__(self) -> str:
        return str(self.value)
