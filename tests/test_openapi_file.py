"""The committed openapi.json is the app's schema, and clients/python was generated from it."""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

from packaging.version import Version

from app.config import Settings
from app.main import create_app

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


def deadline_maxima(document: dict[str, Any]) -> dict[str, list[float]]:
    """Per request schema with a deadline, the `maximum` its `timeout_s` advertises."""
    found = {}
    for name in ("CompareRequest", "ScoreRequest"):
        field = document["components"]["schemas"][name]["properties"]["timeout_s"]
        found[name] = [b["maximum"] for b in field["anyOf"] if b.get("type") == "number"]
    return found


def test_the_schema_states_the_deadline_bound_the_server_enforces() -> None:
    """`timeout_s` above FAIRPAIR_COMPARE_TIMEOUT_S is refused (422), so the schema says so:
    120 by default, the operator's value otherwise (it advertised 3600)."""
    committed = json.loads((ROOT / "openapi.json").read_text(encoding="utf-8"))
    assert deadline_maxima(committed) == {"CompareRequest": [120.0], "ScoreRequest": [120.0]}
    app = create_app(Settings(_env_file=None, compare_timeout_s=30))
    assert deadline_maxima(app.openapi()) == {"CompareRequest": [30.0], "ScoreRequest": [30.0]}
    judge = app.openapi()["components"]["schemas"]["JudgeUpdate"]["properties"]["timeout_s"]
    assert [b.get("maximum") for b in judge["anyOf"]] == [600.0, None]  # a judge's own bound


def test_every_operation_that_checks_a_key_declares_the_bearer_scheme() -> None:
    document = json.loads((ROOT / "openapi.json").read_text(encoding="utf-8"))
    assert document["components"]["securitySchemes"] == {
        "bearer": {
            "type": "http",
            "scheme": "bearer",
            "description": "an API key, `fp_<id>_<secret>` (`fairpair keys create`)",
        }
    }
    security = {
        (path, method): operation.get("security")
        for path, methods in document["paths"].items()
        for method, operation in methods.items()
    }
    open_ones = {op for op, declared in security.items() if declared is None}
    assert open_ones == {("/healthz", "get"), ("/readyz", "get"), ("/metrics", "get")}
    assert {str(declared) for declared in security.values() if declared} == {"[{'bearer': []}]"}


API_VERSIONS = ROOT / "clients" / "API_VERSIONS"
BUMP = (
    "the API changed: raise `version` in pyproject.toml (the API's and the client's version), "
    "regenerate openapi.json and the client, and add 'VERSION SHA256' to clients/API_VERSIONS"
)


def test_the_client_version_follows_the_apis() -> None:
    """Each published schema has one version, raised when the schema changes: the last line of
    clients/API_VERSIONS is the committed openapi.json's, and the client carries its version."""
    document = json.loads((ROOT / "openapi.json").read_text(encoding="utf-8"))
    client = tomllib.loads((ROOT / "clients" / "python" / "pyproject.toml").read_text())
    assert client["project"]["version"] == document["info"]["version"], REGENERATE
    lines = API_VERSIONS.read_text().splitlines()
    history = [line.split() for line in lines if line.strip() and not line.startswith("#")]
    versions = [Version(version) for version, _ in history]
    assert versions == sorted(set(versions)), "clients/API_VERSIONS: versions must only rise"
    digest = hashlib.sha256((ROOT / "openapi.json").read_bytes()).hexdigest()
    assert history[-1] == [document["info"]["version"], digest], BUMP
