from enum import StrEnum


class ComparisonReadConfidenceSourceType0(StrEnum):
    FLOORED = "floored"
    INCONSISTENT = "inconsistent"
    LOGPROBS = "logprobs"
    MIXED = "mixed"
    STATED = "stated"
    VOTES = "votes"

    def __str__(self) -> str:
        return str(self.value)
