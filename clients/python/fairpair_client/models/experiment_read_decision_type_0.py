from enum import StrEnum


class ExperimentReadDecisionType0(StrEnum):
    BASELINE_BETTER = "baseline_better"
    CANDIDATE_BETTER = "candidate_better"
    EQUIVALENT = "equivalent"

    def __str__(self) -> str:
        return str(self.value)
