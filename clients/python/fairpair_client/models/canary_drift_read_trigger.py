from enum import StrEnum


class CanaryDriftReadTrigger(StrEnum):
    MANUAL = "manual"
    MODEL = "model"
    SCHEDULE = "schedule"
    VERSION = "version"

    def __str__(self) -> str:
        return str(self.value)
