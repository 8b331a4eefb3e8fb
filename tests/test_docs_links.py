"""The README and docs/ stand on their own: no link leaves the repository or points at nothing,
and every endpoint docs/API.md names is one the app serves (issue 38)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
API_GUIDE = ROOT / "docs" / "API.md"

FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")
# [text](target) or [text](target "title"); images too.
LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
ENDPOINT = re.compile(r"\b(GET|POST|PUT|PATCH|DELETE)\s+(/v1/[^\s`)\],;|]*)")
EXTERNAL = ("http://", "https://", "mailto:", "ftp://")


def prose(text: str) -> str:
    """The text without code blocks and inline code, where brackets are not links."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def links(text: str) -> list[str]:
    """Every link target written in the text's prose."""
    return LINK.findall(prose(text))


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors of a markdown file's headings (repeated headings get -1, -2, ...)."""
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(doc: Path) -> list[str]:
    """The relative links of `doc` that leave the repository or name no file (or heading)."""
    problems = []
    for target in links(doc.read_text(encoding="utf-8")):
        if target.startswith(EXTERNAL):
            problems.append(f"{target}: links outside the repository")
            continue
        file_part, _, anchor = target.partition("#")
        path = (doc.parent / file_part).resolve() if file_part else doc
        if not path.is_relative_to(ROOT):
            problems.append(f"{target}: outside the repository")
        elif not path.exists():
            problems.append(f"{target}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            problems.append(f"{target}: no heading #{anchor} in {path.relative_to(ROOT)}")
    return problems


def normalise(path: str) -> str:
    """A path with its query dropped and every path parameter written `{}`."""
    path = path.split("?", 1)[0].rstrip(".:")
    return re.sub(r"\{[^}/]*\}", "{}", path)


def served_operations() -> set[tuple[str, str]]:
    """(METHOD, normalised path) of every operation in the committed openapi.json."""
    document = json.loads((ROOT / "openapi.json").read_text(encoding="utf-8"))
    return {
        (method.upper(), normalise(path))
        for path, operations in document["paths"].items()
        for method in operations
    }


def named_endpoints(text: str) -> set[tuple[str, str]]:
    """(METHOD, normalised path) of every `METHOD /v1/...` the text writes, code included."""
    return {(method, normalise(path)) for method, path in ENDPOINT.findall(text)}


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_doc_points_at_the_shared_spec_outside_the_repository(doc: Path) -> None:
    lines = [
        f"{doc.relative_to(ROOT)}:{number}: {line.strip()}"
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1)
        if "../shared" in line
    ]
    assert not lines, "a clone has no ../shared; link docs/ instead:\n" + "\n".join(lines)


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_names_a_file_in_the_repository(doc: Path) -> None:
    assert broken_links(doc) == []


def test_the_readme_links_every_reference_page() -> None:
    targets = set(links((ROOT / "README.md").read_text(encoding="utf-8")))
    pages = ("API", "STATISTICS", "JUDGE_CONTRACT", "BATCHES", "ARCHITECTURE", "DECISIONS")
    assert {f"docs/{page}.md" for page in pages} <= targets


def test_every_endpoint_the_api_guide_names_is_served() -> None:
    named = named_endpoints(API_GUIDE.read_text(encoding="utf-8"))
    assert len(named) >= 20, "the guide names too few endpoints: is ENDPOINT still matching?"
    unknown = sorted(named - served_operations())
    assert unknown == [], f"docs/API.md names operations openapi.json does not have: {unknown}"


def test_the_api_guide_names_every_served_v1_operation() -> None:
    named = named_endpoints(API_GUIDE.read_text(encoding="utf-8"))
    served = {(method, path) for method, path in served_operations() if path.startswith("/v1/")}
    missing = sorted(served - named)
    assert missing == [], f"document these operations in docs/API.md: {missing}"


def test_the_checks_catch_what_they_are_for() -> None:
    assert links("[a](docs/API.md) `[b](nowhere.md)`\n```\n[c](gone.md)\n```\n") == ["docs/API.md"]
    assert normalise("/v1/judges/{name}") == normalise("/v1/judges/{judge}") == "/v1/judges/{}"
    assert normalise("/v1/comparisons?tag=k:v") == "/v1/comparisons"
    assert named_endpoints("`GET /v1/batches/{id}/results`, PATCH /v1/judges/{name}.") == {
        ("GET", "/v1/batches/{}/results"),
        ("PATCH", "/v1/judges/{}"),
    }
    assert slug("Failures, retries and deadlines") == "failures-retries-and-deadlines"
    assert slug("`GET /v1/judges` (scope `read`)") == "get-v1judges-scope-read"
    assert ("DELETE", "/v1/judges/{}") not in served_operations()
