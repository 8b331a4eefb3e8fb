from enum import StrEnum


class GetWinRatesOrigin(StrEnum):
    ALL = "all"
    CANARY = "canary"
    TRAFFIC = "traffic"

    def __str__(self) -> str:
        return str(self.value)
