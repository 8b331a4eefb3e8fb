from enum import StrEnum


class JudgeReadSource(StrEnum):
    API = "api"
    BUILTIN = "builtin"
    FILE = "file"

    def __str__(self) -> str:
        return str(self.value)
