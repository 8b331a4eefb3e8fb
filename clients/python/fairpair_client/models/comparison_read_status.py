from enum import StrEnum


class ComparisonReadStatus(StrEnum):
    COMPLETE = "complete"
    FAILED = "failed"
    PARTIAL = "partial"
    RUNNING = "running"
    WAITING = "waiting"

    def __str__(self) -> str:
        return str(self.value)
