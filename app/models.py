"""Every ORM model, imported once so that Alembic and create_all see the whole schema."""

from app.auth.models import ApiKey
from app.comparisons.models import Comparison, ComparisonTag, JudgeCall
from app.db import Base
from app.judges.models import Judge, JudgeVersion

__all__ = ["ApiKey", "Base", "Comparison", "ComparisonTag", "Judge", "JudgeCall", "JudgeVersion"]
