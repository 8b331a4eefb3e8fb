"""The ledger: every comparison and judge call stored, the rollups folded from them, and the
scope every report reads them in."""
