"""Dependencies: floors above known-vulnerable releases, and the lock files every install uses."""

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
# The deployable install's hashed lock (tests/security/test_requirements_lock.py checks the rest).
HASHED_LOCK = ROOT / "requirements.lock"

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


def _locked(lock: Path = LOCK) -> dict[str, Version]:
    pins = re.findall(r"^([A-Za-z0-9_.\-]+)==([^\s;]+)", lock.read_text(), flags=re.MULTILINE)
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
        if name == "setuptools":  # a build requirement: only the hashed lock pins it
            continue
        assert name in locked, f"{name} is not pinned in constraints.txt"
        assert locked[name] >= Version(floor), f"{name}=={locked[name]} is below {floor}"


def test_the_hashed_lock_pins_the_build_backend_above_its_floor() -> None:
    """The image and scripts/serve build fairpair with the setuptools requirements.lock pins."""
    pinned = _locked(HASHED_LOCK).get("setuptools")
    assert pinned is not None, "requirements.lock does not pin setuptools"
    assert pinned >= Version(DECLARED_FLOORS["setuptools"]), f"setuptools=={pinned}"


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


def _pip_installs(path: str) -> list[str]:
    lines = [line.strip() for line in (ROOT / path).read_text().splitlines()]
    return [line for line in lines if re.search(r"\bpip install\b", line) and line[:1] != "#"]


@pytest.mark.parametrize("path", [".ci/run", "scripts/test"])
def test_the_dev_installs_use_the_constraints(path: str) -> None:
    installs = [line for line in _pip_installs(path) if re.search(r"\s-e\b", line)]
    assert installs, f"{path} installs nothing"
    for line in installs:
        assert "-c constraints.txt" in line, f"{path}: '{line}' ignores the lock"


@pytest.mark.parametrize(("path", "fairpair"), [("Dockerfile", "."), ("scripts/serve", "-e .")])
def test_the_deployable_installs_are_hash_checked(path: str, fairpair: str) -> None:
    """Every pip install: the hashed lock, wheels only, then fairpair with nothing resolved (the
    image installs it, the checkout's `scripts/serve` links its source)."""
    installs = [re.sub(r"^(RUN |\.venv/bin/)", "", line) for line in _pip_installs(path)]
    installs = [line.replace(" -q ", " ") for line in installs]
    assert installs == [
        "pip install --require-hashes --no-deps --only-binary :all: -r requirements.lock",
        f"pip install --no-deps --no-build-isolation {fairpair}",
    ], f"{path}: {installs}"


def test_the_image_build_context_carries_the_hashed_lock() -> None:
    """.ci/dockerfile-commands copies what the COPY lines name, then runs the pip installs."""
    assert re.search(r"^COPY .*\brequirements\.lock\b", (ROOT / "Dockerfile").read_text(), re.M)


SDKS = {"openai", "anthropic"}


def test_the_provider_sdks_are_test_references_not_runtime_dependencies() -> None:
    """The lean transport speaks the providers' wire formats itself; the SDKs are what it is
    tested against (issue 43), so the service's install and image carry neither."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = {canonicalize_name(Requirement(r).name) for r in project["dependencies"]}
    dev = {canonicalize_name(Requirement(r).name) for r in project["optional-dependencies"]["dev"]}
    assert not runtime & SDKS
    assert SDKS <= dev
    locked = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    assert not {name for name in SDKS if re.search(rf"^{name}==", locked, re.MULTILINE)}
    imports = re.compile(r"^\s*(?:import|from)\s+(openai|anthropic)\b", re.MULTILINE)
    importing = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "app").rglob("*.py")
        if imports.search(path.read_text(encoding="utf-8"))
    ]
    assert importing == []


def test_the_build_context_admits_exactly_what_the_dockerfile_copies() -> None:
    """.dockerignore shuts out everything (tests, recorded data, local databases, `.env`) but the
    sources the COPY lines name, so a change to the Dockerfile cannot silently miss a file."""
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    copied = {
        source.rstrip("/")
        for line in re.findall(r"^COPY (?!--from)(.*) \S+$", dockerfile, re.M)
        for source in line.split()
    }
    rules = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert rules[0] == "*"
    admitted = {rule[1:].rstrip("/") for rule in rules if rule.startswith("!")}
    assert admitted == copied
