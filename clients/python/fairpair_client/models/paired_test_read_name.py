from enum import StrEnum


class PairedTestReadName(StrEnum):
    FIRST_PICK_RATE = "first_pick_rate"
    POSITION_CONSISTENCY = "position_consistency"
    VERDICT_ACCURACY = "verdict_accuracy"
    VERDICT_DIRECTION = "verdict_direction"

    def __str__(self) -> str:
        return str(self.value)
