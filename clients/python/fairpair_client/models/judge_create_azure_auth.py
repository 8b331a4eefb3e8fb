from enum import StrEnum


class JudgeCreateAzureAuth(StrEnum):
    API_KEY = "api_key"
    ENTRA_ID = "entra_id"

    def __str__(self) -> str:
        return str(self.value)
