from enum import StrEnum


class GetAltTestOrigin(StrEnum):
    ALL = "all"
    CANARY = "canary"
    TRAFFIC = "traffic"

    def __str__(self) -> str:
        return str(self.value)
