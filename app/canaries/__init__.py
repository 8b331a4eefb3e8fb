"""Drift canaries: frozen sets of stored comparisons re-run against judges (issue 22)."""
