"""The commands' reads from a running server (`--url`): one GET with the key, and any failure as
one line for the user, not a traceback (the server is down, the URL is wrong, or it refused)."""

from __future__ import annotations

from typing import Any

import httpx2


def get_json(
    url: str, key: str | None, path: str, params: dict[str, Any], timeout_s: float = 120
) -> dict[str, Any]:
    """The JSON object `path` answers on the server at `url`; a ValueError with one line
    otherwise."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        response = httpx2.get(
            f"{url.rstrip('/')}{path}", params=params, headers=headers, timeout=timeout_s
        )
    except (httpx2.HTTPError, httpx2.InvalidURL) as exc:
        raise ValueError(f"cannot reach {url}: {exc}") from exc
    if response.status_code != 200:
        detail = response.json().get("detail", response.text) if response.content else ""
        raise ValueError(f"{response.status_code} from {url}: {detail}")
    answer: dict[str, Any] = response.json()
    return answer
