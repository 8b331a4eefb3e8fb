"""`/dashboard/comparisons`: the comparison explorer (issue 23)."""

from __future__ import annotations

from fastapi import APIRouter

routes = APIRouter()
