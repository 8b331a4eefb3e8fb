from enum import StrEnum


class ReportFiltersReadBucket(StrEnum):
    DAY = "day"
    HOUR = "hour"

    def __str__(self) -> str:
        return str(self.value)
