"""Dependencies: floors above known-vulnerable releases, one lock file that every install uses."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "constraints.txt"

# The first release without a known advisory that matters here (sandbox escapes in Jinja2 render
# judge templates posted through the API; the rest parse what clients and judges send).
DECLARED_FLOORS = {
    "setuptools": "78.1.1",  # CVE-2025-47273: path traversal (build requirement)
    "jinja2": "3.1.6",  # CVE-2024-56201, CVE-2024-56326, CVE-2025-27516: sandbox escapes
    "starlette": "0.49.1",  # CVE-2024-47874 (form DoS), CVE-2025-54121, CVE-2025-62727
    "h11": "0.16.0",  # CVE-2025-43859: request smuggling through chunked bodies
    "cryptography": "44.0.1",  # CVE-2024-12797 (bundled OpenSSL)
}
# Reached through other packages: the lock must pin them above these.
LOCKED_FLOORS = {
    **DECLARED_FLOORS,
    "urllib3": "2.5.0",  # CVE-2025-50181, CVE-2025-50182
    "requests": "2.32.4",  # CVE-2024-47081: .netrc credentials leak
    "aiohttp": "3.12.14",  # CVE-2025-53643: request smuggling
    "idna": "3.7",  # CVE-2024-3651: quadratic decoding
}


def _pyproject() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        return tomllib.load(handle)


def _declared() -> dict[str, Requirement]:
    project = _pyproject()["project"]
    assert isinstance(project, dict)
    lines = list(project["dependencies"]) + list(project["optional-dependencies"]["dev"])
    build = _pyproject()["build-system"]
    assert isinstance(build, dict)
    lines += list(build["requires"])
    return {canonicalize_name(r.name): r for r in map(Requirement, lines)}


def _locked() -> dict[str, Version]:
    pins = re.findall(r"^([A-Za-z0-9_.\-]+)==([^\s;]+)", LOCK.read_text(), flags=re.MULTILINE)
    return {canonicalize_name(name): Version(version) for name, version in pins}


@pytest.mark.parametrize("name", sorted(DECLARED_FLOORS))
def test_a_declared_floor_excludes_every_known_vulnerable_release(name: str) -> None:
    requirement = _declared().get(name)
    assert requirement is not None, f"{name} needs a declared floor above its advisories"
    vulnerable = _just_below(DECLARED_FLOORS[name])
    assert not requirement.specifier.contains(vulnerable, prereleases=True), (
        f"{requirement} still admits {vulnerable}"
    )


def _just_below(floor: str) -> str:
    """A release just under `floor` (the last vulnerable one, or close to it)."""
    parts = list(Version(floor).release)
    index = max(i for i, part in enumerate(parts) if part > 0)
    parts[index] -= 1
    return ".".join(map(str, parts)) + (".999" if index < len(parts) - 1 else "")


def test_the_lock_pins_every_package_at_or_above_its_floor() -> None:
    locked = _locked()
    for name, floor in LOCKED_FLOORS.items():
        if name == "setuptools":  # a build requirement: pip resolves it in the build environment
            continue
        assert name in locked, f"{name} is not pinned in constraints.txt"
        assert locked[name] >= Version(floor), f"{name}=={locked[name]} is below {floor}"


def test_the_lock_satisfies_what_the_project_declares() -> None:
    locked = _locked()
    for name, requirement in _declared().items():
        if name in ("setuptools", "fairpair"):
            continue
        assert name in locked, f"{name} is declared but not locked"
        assert requirement.specifier.contains(locked[name], prereleases=True), (
            f"the lock pins {name}=={locked[name]}, outside {requirement}"
        )


def test_this_environment_was_installed_from_the_lock() -> None:
    locked = _locked()
    drifted = {
        name: (metadata.version(name), str(version))
        for name, version in locked.items()
        if _installed(name) and Version(metadata.version(name)) != version
    }
    assert not drifted, f"installed versions differ from constraints.txt: {drifted}"


def _installed(name: str) -> bool:
    try:
        metadata.version(name)
    except metadata.PackageNotFoundError:
        return False
    return True


@pytest.mark.parametrize(
    "path", ["Dockerfile", ".ci/run", "scripts/test", "scripts/serve", ".ci/dockerfile-commands"]
)
def test_every_install_command_uses_the_lock(path: str) -> None:
    text = (ROOT / path).read_text()
    installs = [line for line in text.splitlines() if re.search(r"pip install\b.*-e\b", line)]
    if path == ".ci/dockerfile-commands":
        assert "constraints.txt" in text, "the Dockerfile's build context must carry the lock"
        return
    assert installs, f"{path} installs nothing"
    for line in installs:
        assert "-c constraints.txt" in line, f"{path}: '{line.strip()}' ignores the lock"
