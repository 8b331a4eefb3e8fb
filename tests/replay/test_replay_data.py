"""The recorded verdicts are part of the repository (tests/data/replay/README.md), and pinned.

`SHA256SUMS` holds the sha256 of each file as recorded (decompressed), named as in the shared copy
the files were taken from (`../shared/data/replay` beside the repository on this project's
machines). The in-repo copy must be complete (every file the loaders read), match those sums, and
be stored deterministically (`gzip -n -9`: no name, no timestamp), so that re-compressing gives the
same bytes. Where the shared copy exists, its files must have the same sums.
"""

from __future__ import annotations

import gzip
import hashlib
import os
from pathlib import Path

import pytest

from tests.replay import replay
from tests.replay.replay import IN_REPO_DATA, data_file, read_json, read_jsonl

SHARED_COPY = Path(__file__).resolve().parents[3] / "shared/data/replay"
# Every file the replay tests and bench/bench_protocols.py read, as the loaders name it.
READ = [
    *(
        f"judging-the-judges/DevBench__{judge}.jsonl"
        for judge in (
            "claude-3-haiku-20240307",
            "gemini-pro",
            "gpt-3.5-turbo-0125",
            "gpt-3.5-turbo-1106",
            "gpt-4-0613",
        )
    ),
    "judging-the-judges/DevBench_items.jsonl",
    *(
        f"judging-the-judges/MTBench__{judge}.jsonl"
        for judge in ("gemini-pro", "gpt-3.5-turbo-1106", "gpt-4-0613")
    ),
    "judging-the-judges/MTBench_items.jsonl",
    "llmbar/items.jsonl",
    "llmbar/published_statistics.json",
    "llmbar/verdicts.jsonl",
]
KEPT_AS_IS = ["judging-the-judges/LICENSE", "llmbar/LICENSE"]


def manifest() -> dict[str, str]:
    """The pinned sha256 by file name (as recorded, decompressed)."""
    sums = {}
    for line in (IN_REPO_DATA / "SHA256SUMS").read_text(encoding="ascii").splitlines():
        digest, name = line.split("  ", 1)
        sums[name] = digest
    return sums


def stored(name: str) -> Path:
    """Where the repository stores `name`: gzipped, but for the licences."""
    return IN_REPO_DATA / (name if name in KEPT_AS_IS else f"{name}.gz")


def recorded_bytes(name: str) -> bytes:
    """The file `name` as recorded: the stored file, decompressed."""
    path = stored(name)
    return gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_the_copy_is_complete() -> None:
    """Every file the loaders read is stored, with its licence and README; nothing else is."""
    assert sorted(manifest()) == sorted(READ + KEPT_AS_IS)
    for name in READ + KEPT_AS_IS:
        assert stored(name).is_file(), name
    expected = {stored(name) for name in READ + KEPT_AS_IS}
    expected |= {IN_REPO_DATA / "README.md", IN_REPO_DATA / "SHA256SUMS"}
    assert {path for path in IN_REPO_DATA.rglob("*") if path.is_file()} == expected


def test_the_copy_matches_its_pinned_sums() -> None:
    for name, digest in manifest().items():
        assert sha256(recorded_bytes(name)) == digest, name


def test_the_copy_is_gzipped_deterministically() -> None:
    """`gzip -n`: no file name and a zero timestamp in the header, so the bytes are reproducible."""
    for name in READ:
        header = stored(name).read_bytes()[:10]
        assert header[:3] == b"\x1f\x8b\x08", name  # gzip, deflate
        assert not header[3] & 0x08, name  # FNAME
        assert header[4:8] == b"\0\0\0\0", name  # MTIME


@pytest.mark.skipif(not SHARED_COPY.is_dir(), reason=f"no shared copy at {SHARED_COPY}")
def test_the_copy_matches_the_shared_copy() -> None:
    """Each decompressed file is byte for byte the shared one, and no shared data file is missed."""
    for name, digest in manifest().items():
        assert sha256((SHARED_COPY / name).read_bytes()) == digest, name
    shared = {
        str(path.relative_to(SHARED_COPY))
        for path in SHARED_COPY.rglob("*")
        if path.is_file() and path.name != "README.md"
    }
    assert shared == set(manifest())


@pytest.mark.skipif(
    "FAIRPAIR_REPLAY_DATA" in os.environ, reason="FAIRPAIR_REPLAY_DATA names another copy"
)
def test_the_loaders_read_the_repository_copy() -> None:
    assert replay.REPLAY_DATA == IN_REPO_DATA
    assert data_file(replay.JUDGING_THE_JUDGES / "MTBench_items.jsonl") == stored(
        "judging-the-judges/MTBench_items.jsonl"
    )
    assert replay.recorded_judges("MTBench") == ["gemini-pro", "gpt-3.5-turbo-1106", "gpt-4-0613"]


def test_a_folder_may_hold_plain_or_gzipped_files(tmp_path: Path) -> None:
    """What `FAIRPAIR_REPLAY_DATA` may name: the same layout, each file plain or gzipped."""
    (tmp_path / "plain.jsonl").write_text('{"a": 1}\n\n{"a": 2}\n', encoding="utf-8")
    (tmp_path / "packed.json.gz").write_bytes(gzip.compress('{"é": [1]}'.encode()))
    assert list(read_jsonl(tmp_path / "plain.jsonl")) == [{"a": 1}, {"a": 2}]
    assert read_json(tmp_path / "packed.json") == {"é": [1]}
    with pytest.raises(FileNotFoundError, match="FAIRPAIR_REPLAY_DATA"):
        data_file(tmp_path / "absent.jsonl")
