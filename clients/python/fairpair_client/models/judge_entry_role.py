from enum import StrEnum


class JudgeEntryRole(StrEnum):
    AUDIT = "audit"
    VOTER = "voter"

    def __str__(self) -> str:
        return str(self.value)
