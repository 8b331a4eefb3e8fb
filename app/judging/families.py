"""A model's family: who made it, for the self-preference guard (PRODUCT.md, capability 2).

The effective family of a judge or a response is its explicit `family`, else the family of the
first `FAIRPAIR_FAMILY_PREFIXES` prefix its model name starts with, else unknown. Families are
compared case-insensitively and a blank one is unknown. It lives here, below the judges
registry, so that `GET /v1/judges` shows the very family the panels are planned with.
"""

from __future__ import annotations

from collections.abc import Sequence

DEFAULT_FAMILY_PREFIXES: tuple[tuple[str, str], ...] = (
    ("gpt-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("claude-", "anthropic"),
    ("gemini-", "google"),
    ("llama", "meta"),
    # OpenRouter names a model by its maker: `anthropic/claude-3.5-sonnet`.
    ("openai/", "openai"),
    ("anthropic/", "anthropic"),
    ("google/", "google"),
    ("meta-llama/", "meta"),
)


def normalized_family(family: str | None) -> str | None:
    """A family as compared: case-folded, None when blank."""
    return (family or "").strip().casefold() or None


def family_of(
    model: str | None,
    explicit_family: str | None,
    prefixes: Sequence[tuple[str, str]] = DEFAULT_FAMILY_PREFIXES,
) -> str | None:
    """A response's (or judge's) family: its explicit family, else its model's first matching
    prefix."""
    explicit = normalized_family(explicit_family)
    if explicit is not None or not model:
        return explicit
    model_name = model.strip().casefold()
    for prefix, family in prefixes:
        if model_name.startswith(prefix.casefold()):
            return normalized_family(family)
    return None


def parse_family_prefixes(text: str) -> tuple[tuple[str, str], ...]:
    """Parse a setting like ``"gpt-=openai,o1=openai,claude-=anthropic"``, keeping its order."""
    parsed = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        prefix, separator, family = item.partition("=")
        if not separator or not prefix.strip() or not family.strip():
            raise ValueError(f"family prefix {item!r} is not of the form prefix=family")
        parsed.append((prefix.strip(), family.strip().casefold()))
    return tuple(parsed)
