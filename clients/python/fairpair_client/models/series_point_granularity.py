from enum import StrEnum


class SeriesPointGranularity(StrEnum):
    DAY = "day"
    HOUR = "hour"

    def __str__(self) -> str:
        return str(self.value)
