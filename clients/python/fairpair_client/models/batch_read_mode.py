from enum import StrEnum


class BatchReadMode(StrEnum):
    LIVE = "live"
    PROVIDER = "provider"

    def __str__(self) -> str:
        return str(self.value)
