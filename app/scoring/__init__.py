"""Pointwise scoring with rubrics: `/v1/score`, score sessions, and reviewer calibration."""
