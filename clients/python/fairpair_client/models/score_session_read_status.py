from enum import StrEnum


class ScoreSessionReadStatus(StrEnum):
    COMPLETE = "complete"
    FAILED = "failed"
    PARTIAL = "partial"
    RUNNING = "running"

    def __str__(self) -> str:
        return str(self.value)
