from enum import StrEnum


class ProtocolInKind(StrEnum):
    ADAPTIVE = "adaptive"
    SHUFFLE = "shuffle"
    SINGLE = "single"
    SWAP = "swap"

    def __str__(self) -> str:
        return str(self.value)
