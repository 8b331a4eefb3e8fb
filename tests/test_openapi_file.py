"""The committed openapi.json is the app's schema, and clients/python was generated from it."""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
REGENERATE = "run scripts/export-openapi, then regenerate the client as README says"


def export_script() -> ModuleType:
    """scripts/export-openapi as a module (it has no .py suffix)."""
    path = str(ROOT / "scripts" / "export-openapi")
    loader = importlib.machinery.SourceFileLoader("export_openapi", path)
    spec = importlib.util.spec_from_loader("export_openapi", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_committed_openapi_document_equals_the_apps() -> None:
    script = export_script()
    committed = (ROOT / "openapi.json").read_text(encoding="utf-8")
    assert script.render(script.openapi_document()) == committed, REGENERATE


def test_python_client_was_generated_from_the_committed_document() -> None:
    digest = hashlib.sha256((ROOT / "openapi.json").read_bytes()).hexdigest()
    recorded = (ROOT / "clients" / "python" / ".openapi-sha256").read_text().strip()
    assert recorded == digest, REGENERATE
