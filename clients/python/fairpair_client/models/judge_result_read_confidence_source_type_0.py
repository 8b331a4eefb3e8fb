from enum import StrEnum


class JudgeResultReadConfidenceSourceType0(StrEnum):
    LOGPROBS = "logprobs"
    STATED = "stated"
    VOTES = "votes"

    def __str__(self) -> str:
        return str(self.value)
