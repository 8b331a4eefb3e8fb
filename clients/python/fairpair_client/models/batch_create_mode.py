from enum import StrEnum


class BatchCreateMode(StrEnum):
    LIVE = "live"
    PROVIDER = "provider"

    def __str__(self) -> str:
        return str(self.value)
