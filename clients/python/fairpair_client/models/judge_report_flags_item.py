from enum import StrEnum


class JudgeReportFlagsItem(StrEnum):
    COIN_TOSS = "coin_toss"
    COIN_TOSS_WATCH = "coin_toss_watch"
    ESCALATE = "escalate"
    ESCALATE_WATCH = "escalate_watch"
    HIGH_FAILURE_RATE = "high_failure_rate"
    LABEL_BIAS = "label_bias"
    LABEL_BIAS_WATCH = "label_bias_watch"
    LENGTH_BIAS = "length_bias"
    LENGTH_BIAS_WATCH = "length_bias_watch"
    POSITION_BIAS = "position_bias"
    POSITION_BIAS_WATCH = "position_bias_watch"
    RED_FLAG = "red_flag"
    RED_FLAG_WATCH = "red_flag_watch"
    SELF_PREFERENCE = "self_preference"
    SELF_PREFERENCE_WATCH = "self_preference_watch"
    UNSUPPORTED_PARAMETER = "unsupported_parameter"

    def __str__(self) -> str:
        return str(self.value)
