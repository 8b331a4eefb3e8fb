"""requirements.lock: the hash-checked install of the service (the Dockerfile, scripts/serve).

pip ignores hashes in a constraints file, so the deployable install reads this requirements file
with --require-hashes. These tests hold its form, its versions against constraints.txt, its
coverage of the runtime tree, and show pip refusing a file whose hash is not in it.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "requirements.lock"
CONSTRAINTS = ROOT / "constraints.txt"
# Pinned for `pip install --no-build-isolation -e .`; constraints.txt leaves it unpinned.
BUILD_BACKEND = "setuptools"
# Where this project's machines keep copies of the index's files (byte-identical to PyPI's).
OFFLINE_FILES = (Path("/opt/pypi/files"), Path("/opt/pypi-more/files"), Path("/opt/wheels"))
ENTRY = re.compile(
    r"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>\S+)((?: --hash=sha256:[0-9a-f]{64})+)"
)


def _entries() -> list[str]:
    """The lock's requirement lines, each joined with its continuation lines."""
    lines = LOCK.read_text().replace(" \\\n", " ").splitlines()
    return [" ".join(line.split()) for line in lines if line.strip()[:1] not in ("", "#")]


def _pins() -> dict[str, tuple[Version, set[str]]]:
    pins: dict[str, tuple[Version, set[str]]] = {}
    for entry in _entries():
        match = ENTRY.fullmatch(entry)
        assert match is not None, f"not a pinned, hashed requirement: {entry[:120]}"
        hashes = set(re.findall(r"sha256:([0-9a-f]{64})", entry))
        pins[canonicalize_name(match["name"])] = (Version(match["version"]), hashes)
    return pins


def test_every_entry_pins_one_version_with_sha256_hashes() -> None:
    entries = _entries()
    assert len(entries) > 50, "requirements.lock lost its entries"
    assert len(_pins()) == len(entries), "a package is pinned twice"


def test_the_versions_are_those_of_constraints_txt() -> None:
    text = CONSTRAINTS.read_text()
    constrained: dict[str, Version] = {
        canonicalize_name(name): Version(version)
        for name, version in re.findall(r"^([A-Za-z0-9_.\-]+)==(\S+)", text, flags=re.MULTILINE)
    }
    moved = {
        name: (str(version), str(constrained.get(name)))
        for name, (version, _) in _pins().items()
        if name != BUILD_BACKEND and constrained.get(name) != version
    }
    assert not moved, f"requirements.lock and constraints.txt differ (lock, constraints): {moved}"


def test_the_lock_holds_the_runtime_tree_and_its_build_backend_only() -> None:
    """The closure of pyproject's dependencies, read from this environment's installed metadata."""
    with (ROOT / "pyproject.toml").open("rb") as handle:
        pyproject = tomllib.load(handle)
    build = {canonicalize_name(Requirement(r).name) for r in pyproject["build-system"]["requires"]}
    assert build == {BUILD_BACKEND}
    runtime = _closure([Requirement(line) for line in pyproject["project"]["dependencies"]])
    locked = set(_pins())
    assert runtime - locked == set(), "runtime dependencies missing from requirements.lock"
    assert locked - runtime - build == set(), "requirements.lock holds more than the runtime tree"


def _closure(requirements: list[Requirement]) -> set[str]:
    """Every distribution the requirements reach on this platform, extras followed."""
    todo = [r for r in requirements if _applies(r, set())]
    seen: set[tuple[str, frozenset[str]]] = set()
    while todo:
        requirement = todo.pop()
        key = (canonicalize_name(requirement.name), frozenset(requirement.extras))
        if key in seen:
            continue
        seen.add(key)
        try:
            requires = metadata.requires(requirement.name) or []
        except metadata.PackageNotFoundError:
            pytest.fail(f"{requirement.name} is not installed here: install from the locks first")
        todo += [d for d in map(Requirement, requires) if _applies(d, requirement.extras)]
    return {name for name, _ in seen}


def _applies(requirement: Requirement, extras: set[str]) -> bool:
    marker = requirement.marker
    return marker is None or any(marker.evaluate({"extra": e}) for e in {"", *extras})


def test_every_offline_file_of_a_locked_version_has_its_hash_in_the_lock() -> None:
    """The mirrors hold PyPI's files (cp311 Linux x86_64 wheels among them): pip takes each."""
    files = _offline_files()
    if not files:
        pytest.skip(f"no file of a locked version in {', '.join(map(str, OFFLINE_FILES))}")
    pins = _pins()
    unknown = [
        path.name
        for path, name in files.items()
        if hashlib.sha256(path.read_bytes()).hexdigest() not in pins[name][1]
    ]
    assert not unknown, f"pip would refuse these files: {unknown}"


def _offline_files() -> dict[Path, str]:
    """The files in OFFLINE_FILES of a version the lock pins, with their package's name."""
    pins = _pins()
    found: dict[Path, str] = {}
    for path in (p for folder in OFFLINE_FILES if folder.is_dir() for p in folder.iterdir()):
        try:
            name, version = (
                parse_wheel_filename(path.name)[:2]
                if path.suffix == ".whl"
                else parse_sdist_filename(path.name)
            )
        except (InvalidWheelFilename, InvalidSdistFilename):
            continue
        if name in pins and pins[name][0] == version:
            found[path] = name
    return found


@pytest.fixture(scope="module")
def small_wheel() -> tuple[Path, str]:
    """The smallest pure-Python wheel of a locked version found offline, and its lock entry."""
    wheels = [p for p in _offline_files() if p.name.endswith("-none-any.whl")]
    if not wheels:
        pytest.skip(f"no pure-Python wheel of a locked version in {OFFLINE_FILES[0]} and the like")
    wheel = min(wheels, key=lambda p: p.stat().st_size)
    name = _offline_files()[wheel]
    entry = next(e for e in _entries() if canonicalize_name(e.split("==")[0]) == name)
    return wheel, entry


def _download(entry: str, wheel: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """pip download with only `wheel` to find and no configuration: no network is reached."""
    (tmp_path / "links").mkdir(exist_ok=True)
    (tmp_path / "links" / wheel.name).write_bytes(wheel.read_bytes())
    (tmp_path / "requirements.txt").write_text(entry + "\n")
    command = [sys.executable, "-m", "pip", "download", "--isolated", "--no-deps", "--no-index"]
    command += ["--disable-pip-version-check", "--find-links", str(tmp_path / "links")]
    command += ["--dest", str(tmp_path / "dest"), "-r", str(tmp_path / "requirements.txt")]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_pip_takes_the_locked_file(small_wheel: tuple[Path, str], tmp_path: Path) -> None:
    wheel, entry = small_wheel
    result = _download(entry, wheel, tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "dest" / wheel.name).exists()


def test_pip_refuses_the_file_when_its_hash_in_the_lock_is_altered(
    small_wheel: tuple[Path, str], tmp_path: Path
) -> None:
    wheel, entry = small_wheel
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    altered = digest[:-1] + ("0" if digest[-1] != "0" else "1")
    result = _download(entry.replace(digest, altered), wheel, tmp_path)
    assert result.returncode != 0
    assert "DO NOT MATCH THE HASHES" in result.stderr, result.stderr
    assert not (tmp_path / "dest" / wheel.name).exists()


def test_pip_refuses_a_tampered_file_under_the_true_lock(
    small_wheel: tuple[Path, str], tmp_path: Path
) -> None:
    wheel, entry = small_wheel
    tampered = tmp_path / "tampered" / wheel.name
    tampered.parent.mkdir()
    tampered.write_bytes(wheel.read_bytes() + b"\0")
    result = _download(entry, tampered, tmp_path)
    assert result.returncode != 0
    assert "DO NOT MATCH THE HASHES" in result.stderr, result.stderr


def test_the_project_declares_exactly_the_python_its_locks_were_made_for() -> None:
    """Both files pin versions resolved on one Python (their pip-compile header); the project
    declares that minor version and no other, so no install runs on an untested Python with
    versions resolved for another (issue 43)."""
    made_for = set()
    for path in (LOCK, CONSTRAINTS):
        header = r"autogenerated by pip-compile with Python (\d+)\.(\d+)"
        found = re.search(header, path.read_text())
        assert found is not None, path
        made_for.add((int(found.group(1)), int(found.group(2))))
    [(major, minor)] = made_for
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert declared == f">={major}.{minor},<{major}.{minor + 1}"
    assert sys.version_info[:2] == (major, minor)
