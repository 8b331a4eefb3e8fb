from enum import StrEnum


class CanaryRunReadStatus(StrEnum):
    COMPLETE = "complete"
    RUNNING = "running"

    def __str__(self) -> str:
        return str(self.value)
