from enum import StrEnum


class ExperimentReadStatus(StrEnum):
    CANCELLED = "cancelled"
    DECIDED = "decided"
    EXHAUSTED = "exhausted"
    RUNNING = "running"

    def __str__(self) -> str:
        return str(self.value)
