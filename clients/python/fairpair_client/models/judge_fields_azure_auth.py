from enum import StrEnum


class JudgeFieldsAzureAuth(StrEnum):
    API_KEY = "api_key"
    ENTRA_ID = "entra_id"

    def __str__(self) -> str:
        return str(self.value)
