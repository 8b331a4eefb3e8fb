"""The `fairpair` command: serve, migrate, keys, sim-judge."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Annotated, TypeVar

import typer
import uvicorn
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth import keys
from app.config import UnsafeSettingsError, check_startup_safety, get_settings
from app.db import create_engine, create_sessionmaker

T = TypeVar("T")

app = typer.Typer(
    help="fairpair: debiased pairwise comparison with LLM judges.", no_args_is_help=True
)
keys_app = typer.Typer(help="Manage API keys.", no_args_is_help=True)
app.add_typer(keys_app, name="keys")


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="address to bind")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port to bind")] = 8000,
) -> None:
    """Run the API (one process) with uvicorn."""
    settings = get_settings()
    try:
        check_startup_safety(settings, host)
    except UnsafeSettingsError as exc:
        typer.echo(f"refusing to start: {exc}", err=True)
        raise typer.Exit(2) from exc
    from app.main import create_app

    uvicorn.run(
        create_app(settings), host=host, port=port, log_config=None, timeout_graceful_shutdown=30
    )


@app.command()
def migrate() -> None:
    """Upgrade the database to the latest schema."""
    from app.schema import upgrade

    upgrade(get_settings().database_url)
    typer.echo("database is at the latest schema")


async def _with_session(action: Callable[[AsyncSession], Awaitable[T]]) -> T:
    engine = create_engine(get_settings().database_url)
    try:
        async with create_sessionmaker(engine)() as session:
            return await action(session)
    finally:
        await engine.dispose()


@keys_app.command("create")
def keys_create(
    name: Annotated[str, typer.Option(help="a unique name for the key")],
    scopes: Annotated[str, typer.Option(help="comma-separated: compare,score,read,label,admin")],
) -> None:
    """Create a key; it is printed once, alone on the last line."""
    try:
        scope_list = keys.check_scopes([s.strip() for s in scopes.split(",") if s.strip()])
    except ValueError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from exc
    token = asyncio.run(_with_session(lambda s: keys.create_key(s, name, scope_list)))
    typer.echo(f"created key '{name}' with scopes {','.join(scope_list)}; it is shown only now:")
    typer.echo(token)


@keys_app.command("list")
def keys_list() -> None:
    """List keys (never their secrets)."""
    for key in asyncio.run(_with_session(keys.list_keys)):
        state = f"revoked {key.revoked_at:%Y-%m-%d}" if key.revoked_at else "active"
        typer.echo(f"{key.name}\tfp_{key.id}_…\t{','.join(key.scopes)}\t{state}")


@keys_app.command("revoke")
def keys_revoke(name: str) -> None:
    """Revoke the key named NAME."""
    if not asyncio.run(_with_session(lambda s: keys.revoke_key(s, name))):
        typer.echo(f"no key named '{name}'", err=True)
        raise typer.Exit(1)
    typer.echo(f"revoked '{name}'")


@app.command("sim-judge")
def sim_judge(
    host: Annotated[str, typer.Option(help="address to bind")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port to bind")] = 8100,
    position_bias: Annotated[float, typer.Option(help="logit offset toward the first slot")] = 0.0,
    label_bias: Annotated[
        float, typer.Option(help="logit offset toward the pair's 2nd label")
    ] = 0.0,
    length_bias: Annotated[float, typer.Option(help="logit offset per tanh(Δlen/500)")] = 0.0,
    beta: Annotated[float, typer.Option(help="weight of the quality difference")] = 1.5,
    tie_rate: Annotated[float, typer.Option(help="share of tie answers")] = 0.0,
    offsets: Annotated[str, typer.Option(help="scoring offsets, name=x,name=y")] = "",
    first_slot_bonus: Annotated[float, typer.Option(help="score bonus when shown first")] = 0.0,
    score_noise: Annotated[float, typer.Option(help="sd of scoring noise")] = 0.5,
    latency_ms: Annotated[float, typer.Option(help="answer latency")] = 0.0,
    error_rate: Annotated[float, typer.Option(help="share of HTTP 500 answers")] = 0.0,
    malformed_rate: Annotated[float, typer.Option(help="share of unparseable answers")] = 0.0,
    seed: Annotated[int, typer.Option(help="seed of every random draw")] = 0,
) -> None:
    """Serve the simulated judge as an OpenAI-compatible endpoint (/v1/chat/completions)."""
    from app.judging.sim_server import parse_offsets, run_sim_judge
    from app.judging.types import SimKnobs

    knobs = SimKnobs(
        position_bias=position_bias,
        label_bias=label_bias,
        length_bias=length_bias,
        beta=beta,
        tie_rate=tie_rate,
        offsets=parse_offsets(offsets),
        first_slot_bonus=first_slot_bonus,
        score_noise=score_noise,
        latency_ms=latency_ms,
        error_rate=error_rate,
        malformed_rate=malformed_rate,
        seed=seed,
    )
    run_sim_judge(host, port, knobs)
