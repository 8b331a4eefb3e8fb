"""Issue 21: `GET /v1/judges` pages like every list and shows each judge's effective family."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import httpx2

from app.config import Settings

MANY_JUDGES = 'default_panel = ["j00"]\n' + "".join(
    f'\n[[judges]]\nname = "j{i:02d}"\nprovider = "sim"\nmodel = "sim-{i}"\n' for i in range(5)
)
FAMILIES = """
default_panel = ["plain"]

[[judges]]
name = "plain"
provider = "sim"
model = "claude-3-haiku"

[[judges]]
name = "explicit"
provider = "sim"
model = "claude-3-haiku"
family = "Mine"

[[judges]]
name = "custom"
provider = "sim"
model = "acme-7b"

[[judges]]
name = "unknown"
provider = "sim"
model = "sim-x"
"""


async def test_judges_page_with_next_cursor(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    reader: dict[str, str],
) -> None:
    client: httpx2.AsyncClient = await live_factory(settings_factory(MANY_JUDGES))
    names: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        params: dict[str, Any] = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        answer = await client.get("/v1/judges", headers=reader, params=params)
        assert answer.status_code == 200, answer.text
        page = answer.json()
        assert len(page["items"]) <= 2
        names += [j["name"] for j in page["items"]]
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert (names, pages) == ([f"j{i:02d}" for i in range(5)], 3)
    everything = (await client.get("/v1/judges", headers=reader)).json()
    assert ([j["name"] for j in everything["items"]], everything["next_cursor"]) == (names, None)


async def test_judges_list_refuses_a_bad_cursor_and_limit(
    client: httpx2.AsyncClient, reader: dict[str, str]
) -> None:
    # What a cursor decodes to is hostile too: a NUL made PostgreSQL refuse the query (a 500).
    hostile = [base64.urlsafe_b64encode(raw).decode() for raw in (b"j\x00", "jé".encode(), b"j\n")]
    cursors: list[dict[str, str | int]] = [{"cursor": c} for c in ["not-ours", *hostile]]
    bad: list[dict[str, str | int]] = [*cursors, {"limit": 0}, {"limit": 201}]
    for params in bad:
        answer = await client.get("/v1/judges", headers=reader, params=params)
        assert (answer.status_code, answer.json()["type"]) == (422, "validation-error"), params


async def test_judges_show_the_effective_family_the_self_preference_guard_uses(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    reader: dict[str, str],
) -> None:
    settings = settings_factory(FAMILIES, family_prefixes="claude-=anthropic,acme-=acme")
    client: httpx2.AsyncClient = await live_factory(settings)
    items = (await client.get("/v1/judges", headers=reader)).json()["items"]
    family = {j["name"]: j["family"] for j in items}
    assert family == {"plain": "anthropic", "explicit": "mine", "custom": "acme", "unknown": None}
    # The stored configuration still says what the operator wrote.
    config = {j["name"]: j["config"]["family"] for j in items}
    assert (config["plain"], config["explicit"]) == (None, "Mine")
    one = (await client.get("/v1/judges/custom", headers=reader)).json()
    assert one["family"] == "acme"
