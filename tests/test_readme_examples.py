"""The README's shell examples run as written on the setup they describe (issue 43).

Every shell block of README.md (a fence with no language, `bash` or `sh`) follows a marker:
`<!-- readme-test: run -->` blocks run in README order, in one bash, against a `fairpair serve` of
the embedded default (SQLite in a fresh folder, auth off, no judges file) with the two settings
the README names for API-posted judges (`FAIRPAIR_JUDGE_KEY_ENVS` for OpenAI's and Azure's key
variables); `<!-- readme-test: skip: WHY -->` blocks say why they cannot run here (a real
provider's key, the server or the test command itself, a PostgreSQL deployment). The one
substitution is the port: `localhost:8000` and `127.0.0.1:8000` become the test server's. `curl`
runs with `--fail-with-body`, so an example that answers an HTTP error fails the test, and so does
any command that exits non-zero.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.processes import free_port, running

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SHELL = {"", "bash", "sh"}
MARKER = re.compile(r"<!-- readme-test: (run|skip: ([^>]*\S)) -->\s*\Z")
FENCE = re.compile(r"^```([\w-]*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
DEFAULT_PORT = re.compile(r"(localhost|127\.0\.0\.1):8000\b")
# What the README's "Adding a real judge" says an operator sets for API-posted judges' keys.
KEY_ENVS = "OPENAI_API_KEY,AZURE_OPENAI_API_KEY=https://my-resource.openai.azure.com"


@dataclass(frozen=True)
class Block:
    line: int
    text: str
    runs: bool
    why_skipped: str | None


def shell_blocks(markdown: str) -> list[Block]:
    """The shell blocks of `markdown` with their markers (ValueError for a block without one)."""
    blocks = []
    for fence in FENCE.finditer(markdown):
        if fence.group(1) not in SHELL:
            continue
        line = markdown.count("\n", 0, fence.start()) + 1
        marker = MARKER.search(markdown, 0, fence.start())
        if marker is None:
            raise ValueError(f"README.md:{line}: a shell block without a readme-test marker")
        blocks.append(Block(line, fence.group(2), marker.group(1) == "run", marker.group(2)))
    return blocks


def test_every_shell_block_says_whether_it_runs_and_why_not() -> None:
    text = README.read_text(encoding="utf-8")
    blocks = shell_blocks(text)
    # The server below runs with the setting the README's judge examples state.
    assert f"FAIRPAIR_JUDGE_KEY_ENVS={KEY_ENVS}" in text
    assert sum(block.runs for block in blocks) >= 4
    assert all(block.runs or block.why_skipped for block in blocks)


def test_a_block_without_a_marker_is_refused() -> None:
    marked = "<!-- readme-test: run -->\n```\ntrue\n```\n"
    assert [b.runs for b in shell_blocks(marked)] == [True]
    with pytest.raises(ValueError, match=r"README\.md:7: a shell block without"):
        shell_blocks(marked + "\ntext\n```bash\nfalse\n```\n")
    # A marker belongs to the block right after it, not to a later one.
    with pytest.raises(ValueError, match="without a readme-test marker"):
        shell_blocks("<!-- readme-test: run -->\n\nprose\n\n```\nfalse\n```\n")


def script(blocks: list[Block], port: int) -> str:
    """One bash program: the blocks that run, in order, each announced on stderr."""
    lines = [
        "set -euo pipefail",
        'curl() { command curl --silent --show-error --fail-with-body "$@"; echo; }',
    ]
    for block in blocks:
        if block.runs:
            lines.append(f"echo '--- README.md:{block.line}' >&2")
            lines.append(DEFAULT_PORT.sub(f"127.0.0.1:{port}", block.text))
    return "\n".join(lines) + "\n"


@pytest.mark.slow
def test_the_readme_examples_run_against_the_embedded_default(tmp_path: Path) -> None:
    blocks = shell_blocks(README.read_text(encoding="utf-8"))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        "FAIRPAIR_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/fairpair.db",
        "FAIRPAIR_AUTH": "off",
        "FAIRPAIR_JUDGE_KEY_ENVS": KEY_ENVS,
        "FAIRPAIR_URL": base,
        "FAIRPAIR_KEY": "",
        "PATH": f"{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}",
    }
    with running("serve", "--port", str(port), env=env, health_url=f"{base}/readyz"):
        result = subprocess.run(
            ["bash", "-c", script(blocks, port)],
            cwd=ROOT,
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    assert result.returncode == 0, f"{result.stderr[-4000:]}\n{result.stdout[-4000:]}"
    # The demo ran and reported; the hand-made comparison and the report answered JSON.
    assert "position_bias" in result.stdout
    assert '"simulated":true' in result.stdout.replace(" ", "")
