"""Every ORM model, imported once so that Alembic and create_all see the whole schema."""

from app.auth.models import ApiKey
from app.batches.models import Batch, BatchItem  # noqa: F401 (registers the tables)
from app.canaries.models import Canary  # noqa: F401 (registers the canaries' tables)
from app.db import Base
from app.judges.models import Judge, JudgeVersion
from app.keyring.models import InstanceSecret  # noqa: F401 (registers the instance secrets)
from app.labels.models import Label  # noqa: F401 (registers the labels table)
from app.ledger import fold  # noqa: F401 (folds stored calls into the rollups)
from app.ledger.experiments import Experiment  # noqa: F401 (registers the experiments table)
from app.ledger.models import Comparison, ComparisonTag, JudgeCall
from app.ledger.rollup_tables import CallRollup, JudgeObservation  # noqa: F401 (registers the rollups)
from app.scoring.models import ScoreSession  # noqa: F401 (registers the scoring tables)

__all__ = ["ApiKey", "Base", "Comparison", "ComparisonTag", "Judge", "JudgeCall", "JudgeVersion"]
