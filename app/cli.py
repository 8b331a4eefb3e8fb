"""The `fairpair` command: serve, migrate, keys, sim-judge."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer
import uvicorn

from app.auth import keys
from app.config import UnsafeSettingsError, check_startup_safety, get_settings
from app.db import create_engine, create_sessionmaker

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


async def _with_session(action):  # type: ignore[no-untyped-def]
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
