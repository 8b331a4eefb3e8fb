from enum import StrEnum


class ScoreRequestSelfPreferenceType0(StrEnum):
    ALLOW = "allow"
    AUDIT = "audit"
    EXCLUDE = "exclude"
    SUBSTITUTE = "substitute"
    WARN = "warn"

    def __str__(self) -> str:
        return str(self.value)
