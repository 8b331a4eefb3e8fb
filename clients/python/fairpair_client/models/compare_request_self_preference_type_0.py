from enum import StrEnum


class CompareRequestSelfPreferenceType0(StrEnum):
    ALLOW = "allow"
    AUDIT = "audit"
    EXCLUDE = "exclude"
    SUBSTITUTE = "substitute"
    WARN = "warn"

    def __str__(self) -> str:
        return str(self.value)
