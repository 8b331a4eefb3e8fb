"""How `fairpair sim-judge --azure` stands in for Azure OpenAI: its deployment route, and the 404
and 401 Azure answers a request without an `api-version` or without credentials."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from starlette.types import Scope

from app.textpatterns import compile_linear

# How Azure OpenAI (`--azure`) answers what it refuses.
AZURE_NOT_FOUND = {"error": {"code": "404", "message": "Resource not found"}}
AZURE_ACCESS_DENIED = {
    "error": {
        "code": "401",
        "message": "Access denied due to invalid subscription key or wrong API endpoint. Make "
        "sure to provide a valid key for an active subscription and use a correct regional API "
        "endpoint for your resource.",
    }
}


# A Microsoft Entra ID access token's shape: a JWT, three base64url parts (the sim checks no
# signature: it stands for the token's presence and form, as a fake provider can).
ENTRA_TOKEN = compile_linear(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")


def azure_deployment(path: str) -> str | None:
    """The deployment of Azure's `/openai/deployments/{deployment}/chat/completions`, or None
    when `path` is another."""
    parts = path.split("/")
    if len(parts) == 6 and parts[:3] == ["", "openai", "deployments"] and parts[3]:
        return parts[3] if parts[4:] == ["chat", "completions"] else None
    return None


def azure_refusal(scope: Scope) -> tuple[int, dict[str, Any]] | None:
    """The status and body Azure OpenAI answers a chat request without an `api-version` query
    parameter, or without credentials: an `api-key` header or a Microsoft Entra ID token, a JWT,
    as `Authorization: Bearer` (a bearer that is not one, such as an API key, is refused), or
    None."""
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
    if not any(value for value in query.get("api-version", ())):
        return 404, AZURE_NOT_FOUND
    headers = dict(scope["headers"])
    bearer = headers.get(b"authorization", b"").decode("latin-1")
    token = bearer.removeprefix("Bearer ") if bearer.startswith("Bearer ") else ""
    if not headers.get(b"api-key") and ENTRA_TOKEN.fullmatch(token) is None:
        return 401, AZURE_ACCESS_DENIED
    return None
