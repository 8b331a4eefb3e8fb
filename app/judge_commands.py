"""`fairpair judges check`: one small pairwise request to every enabled judge of the configured
database, and a table of what came back: reachable, authenticated, answering in the verdict
format, how fast, under which provider model, and whether prices are set.

Each check is a real call (a provider bills it): a few hundred tokens per judge.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Annotated

import typer
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings, get_settings
from app.db import create_engine, create_sessionmaker
from app.judges import service
from app.judges.registry import JudgeRegistry, JudgesFileError, RuntimeJudge
from app.judging.types import JudgeConfig, PairCallResult
from app.logs import configure_logging
from app.schema import upgrade_async

judges_app = typer.Typer(help="Look at the configured judges.", no_args_is_help=True)

# A question every judge gets right: a judge that cannot is not answering as a judge.
PROMPT = "What is 2 + 2? Answer with the number."
RIGHT, WRONG = "4", "5"
# What each error kind means for someone checking a judge.
STATUS_OF_ERROR = {
    "auth": "not authenticated",
    "connection": "not reachable",
    "timeout": "no answer in time",
    "deadline": "no answer in time",
    "rate_limited": "rate limited",
    "server_error": "provider error",
    "bad_request": "request refused",
    "unsupported_parameter": "request refused",
    "unparseable": "answers, not in the verdict format",
    "template_error": "its template fails",
}


@dataclass(frozen=True)
class Check:
    """One judge's row."""

    judge: str
    status: str
    latency_ms: float | None = None
    provider_model: str | None = None
    prices: str = "unknown"
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def prices_of(config: JudgeConfig) -> str:
    """`in/out` $ per million tokens, or `unknown` for a judge whose prices are both 0 (the
    default: unset), so that an unpriced judge never reads as free. The simulated judge is."""
    if not config.prices_known:
        return "unknown"
    return f"${config.price_in_per_mtok:g}/${config.price_out_per_mtok:g}"


def status_of(result: PairCallResult, simulated: bool) -> tuple[str, str]:
    """(status, detail) of a check call: `ok` for any verdict in the format; a wrong pick is
    noted (a simulated judge picks by its hidden qualities, which plain texts do not carry)."""
    if result.error_kind is not None:
        return STATUS_OF_ERROR.get(result.error_kind, result.error_kind), result.error or ""
    if result.pick is None:
        return "answers, not in the verdict format", ""
    if result.pick != "first" and not simulated:
        return "ok", f"but it did not pick {RIGHT!r} for {PROMPT!r}"
    return "ok", ""


async def check_all(
    settings: Settings,
    sessionmaker: async_sessionmaker[AsyncSession],
    only: str | None,
    timeout_s: float,
) -> list[Check]:
    """Every enabled judge (or `only`), by name: the unavailable with why, the others called at
    once."""
    registry = JudgeRegistry(settings, sessionmaker)
    await registry.start()
    try:
        async with sessionmaker() as session:
            listed = [
                (j, v) for j, v in await service.list_judges(session) if only in (None, j.name)
            ]
            reasons = {j.name: registry.unavailable_reason(j, v) for j, v in listed}
            ready = await registry.resolve(session, [n for n, r in reasons.items() if r is None])
        called = await asyncio.gather(*(check_one(runtime, timeout_s) for runtime in ready))
        checks = {c.judge: c for c in called}
        checks |= {n: Check(n, "unavailable", detail=r) for n, r in reasons.items() if r}
        return [checks[judge.name] for judge, _ in listed]
    finally:
        await registry.aclose()


async def check_one(runtime: RuntimeJudge, timeout_s: float) -> Check:
    """One pairwise call, the right answer shown first."""
    deadline = time.monotonic() + timeout_s
    result = await runtime.client.judge_pair(PROMPT, RIGHT, WRONG, deadline=deadline)
    status, detail = status_of(result, runtime.simulated)
    return Check(
        runtime.name,
        status,
        round(result.latency_ms),
        result.provider_model,
        prices_of(runtime.client.config),
        detail[:120],
    )


def table(checks: list[Check]) -> str:
    """The checks as aligned columns."""
    header = ("judge", "status", "latency", "provider model", "price in/out per Mtok", "detail")
    rows = [
        (
            c.judge,
            c.status,
            f"{c.latency_ms:.0f} ms" if c.latency_ms is not None else "-",
            c.provider_model or "-",
            c.prices,
            c.detail,
        )
        for c in checks
    ]
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header) - 1)]
    return "\n".join(
        "  ".join([*(str(v).ljust(w) for v, w in zip(row, widths, strict=False)), row[-1]]).rstrip()
        for row in [header, *rows]
    )


async def _checks(settings: Settings, only: str | None, timeout_s: float) -> list[Check]:
    if settings.is_embedded:  # as `serve` does: the embedded default makes its own schema
        await upgrade_async(settings.database_url)
    engine = create_engine(settings.database_url)
    try:
        return await check_all(settings, create_sessionmaker(engine), only, timeout_s)
    finally:
        await engine.dispose()


@judges_app.command("check")
def check(
    judge: Annotated[str | None, typer.Option(help="only this judge")] = None,
    timeout: Annotated[float, typer.Option(min=1, max=600, help="seconds per judge")] = 30.0,
) -> None:
    """Send every enabled judge one small pairwise request (a real, billed call) and print what
    came back; exit 0 when every judge answered right, 1 otherwise."""
    settings = get_settings()
    # Warnings (an unavailable judge) to stderr, not into the table; a migration's info is noise.
    configure_logging("warning", settings.log_format)
    try:
        checks = asyncio.run(_checks(settings, judge, timeout))
    except (OSError, DBAPIError) as exc:
        reason = " ".join(str(getattr(exc, "orig", None) or exc).split())[:300]
        typer.echo(f"the database cannot be reached: {reason}", err=True)
        raise typer.Exit(2) from exc
    except JudgesFileError as exc:
        typer.echo(" ".join(str(exc).split()), err=True)
        raise typer.Exit(2) from exc
    if not checks:
        typer.echo(f"no enabled judge named {judge!r}" if judge else "no enabled judges", err=True)
        raise typer.Exit(2)
    typer.echo(table(checks))
    raise typer.Exit(0 if all(c.ok for c in checks) else 1)
