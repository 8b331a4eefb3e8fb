from enum import StrEnum


class JudgeFieldsProvider(StrEnum):
    ANTHROPIC = "anthropic"
    AZURE_OPENAI = "azure_openai"
    OPENAI = "openai"
    SIM = "sim"

    def __str__(self) -> str:
        return str(self.value)
