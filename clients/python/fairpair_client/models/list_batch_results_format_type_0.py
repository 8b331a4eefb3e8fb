from enum import StrEnum


class ListBatchResultsFormatType0(StrEnum):
    CSV = "csv"
    JSONL = "jsonl"

    def __str__(self) -> str:
        return str(self.value)
