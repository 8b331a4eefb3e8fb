from enum import StrEnum


class PositionBaselineReasonType0(StrEnum):
    INSUFFICIENT_DATA = "insufficient_data"
    NO_DISPLAY_ORDER = "no_display_order"

    def __str__(self) -> str:
        return str(self.value)
