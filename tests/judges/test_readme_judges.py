"""The judges-file examples of the README's "Adding a real judge" load as written, and each
judge's family is the one the README says (issue 39: OpenAI, reasoning, Azure, Gemini, OpenRouter,
a local server)."""

from __future__ import annotations

import re
from pathlib import Path

from app.judges.registry import read_judges_file
from app.judging.families import family_of

README = Path(__file__).resolve().parents[2] / "README.md"
TOML_BLOCK = re.compile(r"```toml\n(.*?)```", re.DOTALL)


def readme_judges_files() -> list[str]:
    section = README.read_text(encoding="utf-8").split("## Adding a real judge", 1)[1]
    section = section.split("\n## ", 1)[0]
    return [block for block in TOML_BLOCK.findall(section) if "[[judges]]" in block]


def test_every_judges_file_example_of_the_readme_loads(tmp_path: Path) -> None:
    families: dict[str, str | None] = {}
    for number, block in enumerate(readme_judges_files()):
        path = tmp_path / f"judges-{number}.toml"
        path.write_text(block, encoding="utf-8")
        for judge in read_judges_file(path).judges:
            families[judge.name] = family_of(judge.model, judge.family)
    assert families == {
        "gpt-4o": "openai",
        "local-llama": "meta",
        "o4-mini-low": "openai",
        "claude-thinking": "anthropic",
        "azure-gpt-4o": "openai",
        "gemini-flash": "google",
        "claude-via-openrouter": "anthropic",
    }
