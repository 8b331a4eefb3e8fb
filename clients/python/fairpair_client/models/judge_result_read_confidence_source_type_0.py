from enum import StrEnum


class JudgeResultReadConfidenceSourceType0(StrEnum):
    FLOORED = "floored"
    INCONSISTENT = "inconsistent"
    LOGPROBS = "logprobs"
    MIXED = "mixed"
    STATED = "stated"
    VOTES = "votes"

    def __str__(self) -> str:
        return str(self.value)
