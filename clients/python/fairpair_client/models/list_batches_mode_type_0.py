from enum import StrEnum


class ListBatchesModeType0(StrEnum):
    LIVE = "live"
    PROVIDER = "provider"

    def __str__(self) -> str:
        return str(self.value)
