from enum import StrEnum


class CallReadDisplayOrder(StrEnum):
    AB = "AB"
    BA = "BA"

    def __str__(self) -> str:
        return str(self.value)
