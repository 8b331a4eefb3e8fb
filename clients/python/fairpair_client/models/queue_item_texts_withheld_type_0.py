from enum import StrEnum


class QueueItemTextsWithheldType0(StrEnum):
    PRIVACY = "privacy"
    PURGED = "purged"

    def __str__(self) -> str:
        return str(self.value)
