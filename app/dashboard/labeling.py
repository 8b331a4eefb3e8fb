"""`/dashboard/label`: blind human labeling in the browser (issue 23)."""

from __future__ import annotations

from fastapi import APIRouter

routes = APIRouter()
