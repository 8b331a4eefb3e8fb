"""The operator's proxy for judge connections (`FAIRPAIR_JUDGE_PROXY`): its one URL rule, read
where the settings load (a typo stops the start) and where judges connect."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit


@dataclass(frozen=True)
class JudgeProxy:
    """The operator's HTTP proxy for judge connections (`FAIRPAIR_JUDGE_PROXY`,
    `http://[user:password@]host:port`): every judge connection is a CONNECT tunnel through it."""

    host: str
    port: int
    # The `Proxy-Authorization` value of the URL's user and password, if any.
    authorization: str | None = field(default=None, repr=False)

    @classmethod
    def parse(cls, url: str) -> JudgeProxy:
        """The proxy of `url`; ValueError (one line, the password left out) when it is not an
        `http://host:port` URL with nothing after the port."""
        parts = urlsplit(url)
        shown = f"{parts.scheme}://{parts.hostname}:{parts.port}" if parts.hostname else "it"
        try:
            port = parts.port
        except ValueError:
            port = None
        if parts.scheme != "http" or not parts.hostname or port is None:
            raise ValueError(f"FAIRPAIR_JUDGE_PROXY must be http://host:port, not {shown}")
        if parts.path not in ("", "/") or parts.query or parts.fragment:
            raise ValueError(f"FAIRPAIR_JUDGE_PROXY takes no path or query ({shown})")
        authorization = None
        if parts.username is not None:
            secret = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
            authorization = "Basic " + base64.b64encode(secret.encode()).decode("ascii")
        return cls(parts.hostname, port, authorization)
