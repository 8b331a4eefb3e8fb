from enum import StrEnum


class WinRateFiltersOrigin(StrEnum):
    ALL = "all"
    CANARY = "canary"
    TRAFFIC = "traffic"

    def __str__(self) -> str:
        return str(self.value)
