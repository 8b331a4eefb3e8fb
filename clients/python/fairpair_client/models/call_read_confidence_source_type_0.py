from enum import StrEnum


class CallReadConfidenceSourceType0(StrEnum):
    LOGPROBS = "logprobs"
    STATED = "stated"

    def __str__(self) -> str:
        return str(self.value)
