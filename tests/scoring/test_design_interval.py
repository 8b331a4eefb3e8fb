"""The CI of a reviewer or position effect from its cluster-robust variance (scoring/design)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.scoring.design import ComponentFit
from app.stats import Z95


def fit() -> ComponentFit:
    return ComponentFit(
        reviewers=["rev-a"],
        positions=[0],
        offsets=np.zeros(1),
        position_effects=None,
        position_counts=[1],
        n=1,
        covariance=None,
        sampled=False,
        n_used=1,
    )


def test_a_variance_of_zero_rounded_below_zero_gives_a_point_interval() -> None:
    # Seen in CI: a score batch whose residuals were all zero failed with "math domain error".
    assert fit().interval(0.3, -1.7e-17) == (0.3, 0.3)


@pytest.mark.parametrize("variance", [None, math.nan, math.inf, -0.01])
def test_no_interval_without_a_finite_non_negative_variance(variance: float | None) -> None:
    assert fit().interval(0.3, variance) is None


def test_the_interval_is_the_point_plus_or_minus_z_standard_errors() -> None:
    low, high = fit().interval(1.0, 0.04) or (math.nan, math.nan)
    assert low == pytest.approx(1.0 - Z95 * 0.2)
    assert high == pytest.approx(1.0 + Z95 * 0.2)
