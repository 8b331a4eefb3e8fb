"""The `fairpair` command: serve, worker, migrate, keys, batch, judges, sim-judge, purge, report,
demo.

Over 500 lines because each command is a thin function whose typed options are its `--help`;
the work is in the features they call.
"""

from __future__ import annotations

import asyncio
import enum
import json
import os
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal, TypeVar

import typer
import uvicorn
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from app.auth import keys
from app.batch_commands import batch_app
from app.config import (
    Settings,
    UnsafeSettingsError,
    check_metrics_host,
    check_secret_key,
    check_startup_safety,
    get_settings,
)
from app.db import create_engine, create_sessionmaker
from app.experiment_commands import decide
from app.judge_commands import judges_app
from app.schema import NotMigratedError, check_migrated

T = TypeVar("T")

app = typer.Typer(
    help="fairpair: debiased pairwise comparison with LLM judges.", no_args_is_help=True
)
keys_app = typer.Typer(help="Manage API keys and rotate the secret key.", no_args_is_help=True)
app.add_typer(keys_app, name="keys")
app.add_typer(batch_app, name="batch")
app.add_typer(judges_app, name="judges")
app.command("decide")(decide)


def _print_version(wanted: bool) -> None:
    if wanted:
        from importlib.metadata import version

        typer.echo(f"fairpair {version('fairpair')}")
        raise typer.Exit()


@app.callback()
def main(
    _version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """fairpair: debiased pairwise comparison with LLM judges."""


# The options of the commands that read from a server (--url) or else the local database.
OutputFormat = Annotated[Literal["table", "json"], typer.Option("--format", help="table or json")]
ServerOrLocal = Annotated[
    str | None, typer.Option(envvar="FAIRPAIR_URL", help="a server; else the local database")
]
ReadKey = Annotated[str | None, typer.Option(envvar="FAIRPAIR_KEY", help="a read key")]


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="address to bind")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port to bind")] = 8000,
    workers: Annotated[
        int, typer.Option(min=1, help="API processes sharing the port (PostgreSQL and Redis only)")
    ] = 1,
) -> None:
    """Run the API with uvicorn: one process, or `--workers N` sharing the port."""
    settings = get_settings()
    try:
        check_startup_safety(settings, host)
        check_workers(settings, workers)
        check_schema(settings)
    except (UnsafeSettingsError, NotMigratedError) as exc:
        typer.echo(f"refusing to start: {exc}", err=True)
        raise typer.Exit(2) from exc
    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "log_config": None,
        "timeout_graceful_shutdown": int(settings.shutdown_grace_s),
        # A request uvicorn cannot parse gets a 400 problem+json, not plain text.
        "http": "app.middleware:ProblemHttpProtocol",
    }
    if workers == 1:
        from app.main import serving_app

        uvicorn.run(serving_app(settings), **options)
        return
    # Each process builds its own app from the environment, and takes 1/N of the bounds; its
    # metrics go to files that any of them sums for a scrape.
    os.environ["FAIRPAIR_SERVE_WORKERS"] = str(workers)
    from app.metrics import multiprocess_dir

    with multiprocess_dir():
        uvicorn.run("app.main:serving_app", factory=True, workers=workers, **options)


def check_schema(settings: Settings) -> None:
    """A shared database must be migrated first (`fairpair migrate`); the embedded default
    migrates itself as it starts."""
    if not settings.is_embedded:
        asyncio.run(check_migrated(settings.database_url, settings.database_timeout_s))


def check_workers(settings: Settings, workers: int) -> None:
    """More than one API process needs state they can share: PostgreSQL, and Redis for the batch
    queue (without it each process would run its own in-process queue)."""
    if workers > 1 and (settings.is_embedded or not settings.redis_url):
        raise UnsafeSettingsError(
            "--workers > 1 needs PostgreSQL (FAIRPAIR_DATABASE_URL) and FAIRPAIR_REDIS_URL; "
            "the embedded default runs one process"
        )


@app.command()
def worker(
    concurrency: Annotated[
        int | None, typer.Option(min=1, help="items at once (default FAIRPAIR_WORKER_CONCURRENCY)")
    ] = None,
    metrics_port: Annotated[
        int | None, typer.Option(min=1, max=65535, help="serve /metrics on this port")
    ] = None,
    metrics_host: Annotated[str, typer.Option(help="address for --metrics-port")] = "127.0.0.1",
) -> None:
    """Run batch items from the Redis queue; SIGTERM lets running items finish first."""
    settings = get_settings()
    if not settings.redis_url:
        typer.echo(
            "refusing to start: a worker needs FAIRPAIR_REDIS_URL "
            "(without Redis the API process runs batches itself)",
            err=True,
        )
        raise typer.Exit(2)
    try:
        check_startup_safety(settings, "127.0.0.1")
        check_metrics_host(settings, metrics_host)
        check_schema(settings)
    except (UnsafeSettingsError, NotMigratedError) as exc:
        typer.echo(f"refusing to start: {exc}", err=True)
        raise typer.Exit(2) from exc
    from app.worker import main

    metrics = (metrics_host, metrics_port) if metrics_port is not None else None
    main(settings, concurrency or settings.worker_concurrency, metrics=metrics)


@app.command()
def migrate() -> None:
    """Upgrade the database to the latest schema."""
    from app.schema import upgrade

    upgrade(get_settings().database_url)
    typer.echo("database is at the latest schema")


class DatabaseUnreachable(Exception):
    """Connecting to FAIRPAIR_DATABASE_URL failed (refused, unknown host, role or database)."""


async def _with_session(action: Callable[[AsyncSession], Awaitable[T]]) -> T:
    from app.schema import upgrade_async

    settings = get_settings()
    if settings.is_embedded:  # as `serve` does: the embedded default makes its own schema
        await upgrade_async(settings.database_url)
    engine = create_engine(settings.database_url)
    try:
        try:  # connect first: a failure here is the database's, not the command's
            async with engine.connect():
                pass
        except (OSError, DBAPIError) as exc:
            reason = " ".join(str(getattr(exc, "orig", None) or exc).split())[:300]
            raise DatabaseUnreachable(reason or type(exc).__name__) from exc
        async with create_sessionmaker(engine)() as session:
            return await action(session)
    finally:
        await engine.dispose()


def _require_embedded_file() -> None:
    """On the embedded default, the database file a server made; a command that only reads
    must not create one (it would report on an empty database made for the occasion)."""
    from sqlalchemy.engine import make_url

    settings = get_settings()
    path = make_url(settings.database_url).database
    if settings.is_embedded and path and path != ":memory:" and not os.path.exists(path):
        raise DatabaseUnreachable(
            f"no database file at {path}: start the server first (`bash scripts/serve`), "
            "or set FAIRPAIR_DATABASE_URL"
        )


def _in_database(action: Callable[[AsyncSession], Awaitable[T]], *, create: bool = True) -> T:
    """`action` in a session of FAIRPAIR_DATABASE_URL; a database that cannot be reached (or,
    for a command that only reads, an embedded one that does not exist) is one line on stderr
    and exit code 2, not a traceback."""
    try:
        if not create:
            _require_embedded_file()
        return asyncio.run(_with_session(action))
    except DatabaseUnreachable as exc:
        typer.echo(f"the database cannot be reached: {exc}", err=True)
        raise typer.Exit(2) from exc


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
    token = _in_database(lambda s: keys.create_key(s, name, scope_list))
    typer.echo(f"created key '{name}' with scopes {','.join(scope_list)}; it is shown only now:")
    typer.echo(token)


@keys_app.command("list")
def keys_list() -> None:
    """List keys (never their secrets)."""
    for key in _in_database(keys.list_keys):
        state = f"revoked {key.revoked_at:%Y-%m-%d}" if key.revoked_at else "active"
        typer.echo(f"{key.name}\tfp_{key.id}_…\t{','.join(key.scopes)}\t{state}")


@keys_app.command("revoke")
def keys_revoke(name: str) -> None:
    """Revoke the key named NAME."""
    if not _in_database(lambda s: keys.revoke_key(s, name)):
        typer.echo(f"no key named '{name}'", err=True)
        raise typer.Exit(1)
    typer.echo(f"revoked '{name}'")


@keys_app.command("rotate-secret")
def keys_rotate_secret() -> None:
    """Re-encrypt stored provider keys, batch payloads and the privacy salt under
    FAIRPAIR_SECRET_KEY, reading each with it or FAIRPAIR_SECRET_KEY_PREVIOUS; idempotent."""
    from app.keyring.rotation import rotate_secret

    settings = get_settings()
    try:
        check_secret_key(settings)
    except UnsafeSettingsError as exc:
        typer.echo(f"refusing to rotate: {exc}", err=True)
        raise typer.Exit(2) from exc
    counts = _in_database(lambda s: rotate_secret(s, settings))
    for kind, done in counts.items():
        typer.echo(
            f"{kind}: {done.rewritten} re-encrypted, {done.current} already current, "
            f"{done.unreadable} unreadable"
        )
    if any(done.unreadable for done in counts.values()):
        # Left as they are: a later run with the right FAIRPAIR_SECRET_KEY_PREVIOUS rewrites them.
        typer.echo(
            "some ciphertexts open with neither FAIRPAIR_SECRET_KEY nor "
            "FAIRPAIR_SECRET_KEY_PREVIOUS and were left as they are",
            err=True,
        )
        raise typer.Exit(1)


class _BatchOutcome(enum.StrEnum):
    """How the sim judge's provider batch jobs end (SimKnobs.batch_outcome)."""

    completed = "completed"
    expired = "expired"
    failed = "failed"


@app.command("sim-judge")
def sim_judge(
    ctx: typer.Context,
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
    self_preference: Annotated[
        float, typer.Option(help="logit (pairs) or score (scoring) bonus to its own family")
    ] = 0.0,
    injection_following: Annotated[
        float, typer.Option(help="share of pairs where it obeys an instruction in a response")
    ] = 0.0,
    score_noise: Annotated[float, typer.Option(help="sd of scoring noise")] = 0.5,
    latency_ms: Annotated[float, typer.Option(help="answer latency")] = 0.0,
    error_rate: Annotated[float, typer.Option(help="share of HTTP 500 answers")] = 0.0,
    malformed_rate: Annotated[float, typer.Option(help="share of unparseable answers")] = 0.0,
    seed: Annotated[int, typer.Option(help="seed of every random draw")] = 0,
    batch_delay_s: Annotated[
        float, typer.Option("--batch-delay", help="seconds a provider batch job takes")
    ] = 0.0,
    batch_outcome: Annotated[
        _BatchOutcome, typer.Option(help="how provider batch jobs end")
    ] = _BatchOutcome.completed,
    reasoning: Annotated[
        bool,
        typer.Option(
            "--reasoning",
            help="answer chat requests as an OpenAI reasoning model: 400 for temperature "
            "(other than 1), logprobs, top_logprobs and max_tokens",
        ),
    ] = False,
    azure: Annotated[
        bool,
        typer.Option(
            "--azure",
            help="serve Azure OpenAI's POST /openai/deployments/{deployment}/chat/completions "
            "too: 404 without api-version, 401 without an api-key header",
        ),
    ] = False,
    answer_ids: Annotated[
        bool,
        typer.Option(
            "--answer-ids",
            help="give every answer an answer_id and list them at GET /stats/answers (the "
            "soak's books)",
        ),
    ] = False,
) -> None:
    """Serve the simulated judge as an OpenAI-compatible endpoint (/v1/chat/completions), with
    the OpenAI Batch and Anthropic Message Batches APIs."""
    from app.judging.types import SimKnobs
    from app.simjudge.server import parse_offsets, run_sim_judge

    # Every option but the address, --reasoning, --azure and --answer-ids is the SimKnobs field
    # of the same name.
    serving = ("host", "port", "reasoning", "azure", "answer_ids")
    knob_options = {k: v for k, v in ctx.params.items() if k not in serving}
    knobs = SimKnobs(
        **{**knob_options, "offsets": parse_offsets(offsets), "batch_outcome": batch_outcome.value}
    )
    run_sim_judge(host, port, knobs, reasoning=reasoning, answer_ids=answer_ids, azure=azure)


@app.command()
def purge(
    older_than: Annotated[str, typer.Option(help="age like 90d, 12h or 30m")],
    texts_only: Annotated[
        bool,
        typer.Option(
            help="keep the rows, remove prompts, responses, criteria, raw outputs and errors"
        ),
    ] = False,
    include_canaries: Annotated[
        bool,
        typer.Option(
            help="also delete drift canaries created before the cutoff (with their runs) and "
            "the canary runs' comparisons; without it canaries are left as they are"
        ),
    ] = False,
    dry_run: Annotated[
        bool, typer.Option(help="say what would be removed, and remove nothing")
    ] = False,
) -> None:
    """Delete comparisons and score sessions older than an age (or only their texts)."""
    from app.db import utcnow
    from app.params import parse_age
    from app.retention import purge as purge_older

    try:
        cutoff = utcnow() - parse_age(older_than)
    except ValueError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from exc
    purged = _in_database(
        lambda s: purge_older(
            s, cutoff, texts_only=texts_only, include_canaries=include_canaries, dry_run=dry_run
        ),
        create=False,
    )
    deleted = "would delete" if dry_run else "deleted"
    what = ("would remove the texts of" if dry_run else "texts of") if texts_only else deleted
    canaries = f", and {deleted} {purged.canaries} canaries" if include_canaries else ""
    typer.echo(
        f"{what} {purged.comparisons} comparisons and {purged.calls} calls, "
        f"{purged.score_sessions} score sessions and {purged.score_calls} score calls "
        f"created before {cutoff:%Y-%m-%d %H:%M} UTC{canaries}"
    )
    if purged.canary_copies_kept:
        typer.echo(
            f"kept {purged.canary_copies_kept} canary items that copy those comparisons' texts "
            "(--include-canaries also deletes canaries created before the cutoff)"
        )


def _report_params(
    judge: str | None,
    judge_version: int | None,
    since: str | None,
    until: str | None,
    tag: list[str] | None,
    protocol: str | None,
    origin: str | None = None,
) -> dict[str, Any]:
    """The bias report's query parameters, as `GET /v1/bias-report` takes them."""
    params: dict[str, Any] = {
        "judge": judge,
        "judge_version": judge_version,
        "since": since,  # as given: ISO 8601 or an age, read by `app.params.parse_moment`
        "until": until,
        "tag": tag or None,
        "protocol": protocol,
        "origin": origin,
    }
    return {name: value for name, value in params.items() if value is not None}


def _remote_report(url: str, key: str | None, params: dict[str, Any]) -> dict[str, Any]:
    """The report from a running server."""
    from app.remote import get_json

    return get_json(url, key, "/v1/bias-report", params)


async def _local_report(session: AsyncSession, params: dict[str, Any]) -> dict[str, Any]:
    """The report from the local database, by the function the route uses."""
    from app.keyring.service import text_keeper
    from app.reports.bias import build_report
    from app.reports.params import check_known_names, report_filters

    # Tag values are matched as stored: their HMACs in privacy mode.
    engine = session.bind
    assert isinstance(engine, AsyncEngine)  # _with_session binds the session to an engine
    keeper = await text_keeper(get_settings(), create_sessionmaker(engine))
    filters = report_filters(
        params.get("judge"),
        params.get("judge_version"),
        params.get("since"),
        params.get("until"),
        params.get("tag"),
        params.get("protocol"),
        "day",
        keeper=keeper,
        origin=params.get("origin", "traffic"),
    )
    await check_known_names(session, filters)
    report = await build_report(session, filters, get_settings())
    return report.model_dump(mode="json")


def _cell(value: Any, digits: int = 3) -> str:
    if value is None:
        return "—"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def _rate(section: dict[str, Any], name: str, n: str, *, wide: bool) -> str:
    """A rate with its tier (`insufficient` figures are `—`), as the report says; `wide` adds
    its 95% CI and count."""
    tier = section.get("tier") or ""
    if not wide:
        return f"{_cell(section.get(name))} {TIER_SHORT.get(tier, tier)}".rstrip()
    ci = section.get("ci95")
    interval = f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else ""
    return f"{_cell(section.get(name))}{interval} n={section.get(n)}{f' {tier}' if tier else ''}"


# The narrow table's tier names, explained under it.
TIER_SHORT = {"insufficient": "insuf", "preliminary": "prelim", "moderate": "mod", "high": "high"}
REPORT_LEGEND = (
    "first-pick: share of decisive calls picking the response shown first (0.5: no position",
    "  preference); 2nd-label: picking the second label shown; PC: position consistency (swap",
    "  pairs that agree); PF: preference fairness; ties: tie rate; longer: how often the longer",
    "  response wins; self-Δ: self-preference. Tiers (how much evidence): insuf(ficient),",
    "  prelim(inary), mod(erate), high. --wide adds 95% CIs and counts.",
)


def _judge_row(judge: dict[str, Any], *, wide: bool) -> list[str]:
    calls, consistency = judge["calls"], judge["consistency"]
    failed = calls["failed"] / calls["total"] if calls["total"] else None
    return [
        judge["judge"],
        str(calls["total"]),
        _cell(failed),
        _rate(judge["position"], "first_pick_rate", "n", wide=wide),
        _rate(judge["label"], "second_label_pick_rate", "n", wide=wide),
        _rate(consistency, "position_consistency", "pairs", wide=wide),
        _cell(consistency.get("preference_fairness")),
        _cell(judge["position"].get("tie_rate")),
        _cell(judge["length"].get("longer_win_rate")),
        _cell(judge["self_preference"].get("delta")),
    ]


def _styled(flag: str) -> str:
    return typer.style(flag, fg="yellow" if flag.endswith("_watch") else "red", bold=True)


def _render_report(report: dict[str, Any], *, wide: bool = False) -> str:
    """The report as a terminal table, flags in red (yellow for `_watch`) on a terminal. Narrow
    (the default) fits 100 columns: rates with their tiers, the flags under the table, and a
    legend; `wide` shows each rate's CI and count, the flags at the end of each row."""
    head = ["judge", "calls", "failure-rate", "first-pick rate", "2nd-label rate", "PC", "PF"]
    head += ["ties", "longer wins", "self-pref Δ"]
    if not wide:
        head[2:] = ["fail", "first-pick", "2nd-label", "PC", "PF", "ties", "longer", "self-Δ"]
    rows = [head, *(_judge_row(j, wide=wide) for j in report["judges"])]
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = [
        f"bias report since {report['filters']['since']}"
        f" until {report['filters']['until'] or 'now'}"
    ]
    for row, judge in zip(rows, [None, *report["judges"]], strict=True):
        text = "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        if not wide:
            lines.append(text.rstrip())
            continue
        flags = ["flags"] if judge is None else [_styled(f) for f in judge["flags"]]
        lines.append(f"{text}  {' '.join(flags)}")
    if not wide:
        flagged = [j for j in report["judges"] if j["flags"]]
        width = max((len(j["judge"]) for j in flagged), default=0)
        lines += ["", "flags:" if flagged else "flags: none"]
        lines += [
            f"  {j['judge'].ljust(width)}  {' '.join(_styled(f) for f in j['flags'])}"
            for j in flagged
        ]
        lines += ["", *REPORT_LEGEND]
    return "\n".join(lines)


@app.command()
def card(
    name: Annotated[str, typer.Argument(help="the judge's name")],
    version: Annotated[
        int | None, typer.Option(help="a judge version; default its current")
    ] = None,
    output: OutputFormat = "table",
    url: ServerOrLocal = None,
    key: ReadKey = None,
) -> None:
    """Print a judge's card (its probe battery's figures), from a server or the local database;
    `POST /v1/judges/NAME/card` runs the battery."""
    from app.card_commands import local_card, remote_card, render
    from app.errors import AppError
    from app.logs import configure_logging

    configure_logging("warning", get_settings().log_format)
    try:
        data = (
            remote_card(url, key, name, version)
            if url
            else _in_database(lambda s: local_card(s, name, version), create=False)
        )
    except (ValueError, AppError) as exc:
        typer.echo(f"card failed: {getattr(exc, 'detail', None) or exc}", err=True)
        raise typer.Exit(2) from exc
    typer.echo(json.dumps(data, indent=2) if output == "json" else render(data))


@app.command()
def report(
    judge: Annotated[str | None, typer.Option(help="only this judge")] = None,
    judge_version: Annotated[int | None, typer.Option(help="only this judge version")] = None,
    since: Annotated[str | None, typer.Option(help="ISO time or age like 7d; default 30d")] = None,
    until: Annotated[str | None, typer.Option(help="ISO time or age; default now")] = None,
    tag: Annotated[list[str] | None, typer.Option(help="key:value, repeatable")] = None,
    protocol: Annotated[str | None, typer.Option(help="only this protocol")] = None,
    origin: Annotated[
        str | None, typer.Option(help="traffic (default), canary (drift canaries' runs) or all")
    ] = None,
    output: OutputFormat = "table",
    wide: Annotated[
        bool, typer.Option(help="the table with each rate's 95% CI and count (over 100 columns)")
    ] = False,
    url: ServerOrLocal = None,
    key: ReadKey = None,
) -> None:
    """Print the bias report, from a server (--url, --key) or FAIRPAIR_DATABASE_URL."""
    from app.errors import AppError

    try:
        params = _report_params(judge, judge_version, since, until, tag, protocol, origin)
        data = (
            _remote_report(url, key, params)
            if url
            else _in_database(lambda s: _local_report(s, params), create=False)
        )
    except (ValueError, AppError) as exc:
        typer.echo(f"report failed: {getattr(exc, 'detail', None) or exc}", err=True)
        raise typer.Exit(2) from exc
    typer.echo(json.dumps(data, indent=2) if output == "json" else _render_report(data, wide=wide))


def _demo_cards(cards: list[dict[str, Any]]) -> str:
    """The demo judges' cards, as `fairpair card` prints them, after a line on what to expect."""
    from app.card_commands import render

    if not cards:
        return "\nNo judge cards: the service refuses them in privacy mode."
    intro = [
        "",
        "The demo judges' cards: probes whose right answer is known by construction.",
        "demo-position should fail the placebo (identical texts: it prefers the first slot);",
        "demo-label and demo-fair should pass every probe (a fair card is marked by chance",
        "about 2 times in 100).",
    ]
    return "\n\n".join(["\n".join(intro), *(render(card) for card in cards)])


def _demo_guide(report: dict[str, Any], url: str) -> list[str]:
    """What the demo's report should show, whether it does, and where to look next."""
    from app.demo import DEMO_JUDGES, TAG, unexpected_flags

    lines = ["", "The biases the demo injected, and the flag each should raise:"]
    width = max(len(j.name) for j in DEMO_JUDGES)
    for judge in DEMO_JUDGES:
        flag = judge.expected_flag or "no flag"
        lines.append(f"  {judge.name.ljust(width)}  {flag.ljust(13)}  {judge.injected}")
    lines.append(
        "  (a biased judge is also less consistent across display orders: red_flag or coin_toss"
        " may join its flag)"
    )
    problems = unexpected_flags(report)
    if problems:
        found = "; ".join(f"{name}: {', '.join(what)}" for name, what in problems.items())
        lines.append(f"Not as expected: {found}")
    else:
        lines.append("The report shows every injected bias, and nothing on demo-fair.")
    lines += [
        f"Dashboard: {url.rstrip('/')}/dashboard?tag={TAG}",
        f"The same table: fairpair report --url {url} --tag {TAG}",
        "Remove the demo's judges and comparisons: fairpair demo --purge",
    ]
    return lines


async def _demo_run(
    url: str, key: str | None, count: int, seed: int, labels: int = 0
) -> dict[str, Any]:
    from app.demo import open_demo_client, run_demo

    def judges_ready(done: dict[str, str]) -> None:
        typer.echo("demo judges: " + ", ".join(f"{n} {what}" for n, what in done.items()))

    async with open_demo_client(url, key) as client:
        cards: list[dict[str, Any]] = []
        with typer.progressbar(length=count, label="comparisons", show_pos=True) as bar:
            report = await run_demo(
                client,
                count=count,
                seed=seed,
                on_judges=judges_ready,
                on_done=lambda: bar.update(1),
                labels=labels,
                on_labels=lambda n: typer.echo(f"\nposted {n} simulated labels from the queue"),
                cards=cards,
            )
        return {**report, "demo_cards": cards}


async def _demo_purge(url: str, key: str | None) -> tuple[list[str], tuple[int, int]]:
    """Retire the demo judges and delete the demo's comparisons, both through the server."""
    from app.demo import delete_demo_comparisons, open_demo_client, retire_judges

    async with open_demo_client(url, key) as client:
        return await retire_judges(client), await delete_demo_comparisons(client)


@app.command()
def demo(
    url: Annotated[
        str, typer.Option(envvar="FAIRPAIR_URL", help="the running service")
    ] = "http://127.0.0.1:8000",
    key: Annotated[
        str | None, typer.Option(envvar="FAIRPAIR_KEY", help="an admin key (none with auth off)")
    ] = None,
    count: Annotated[int, typer.Option(min=100, max=5000, help="comparisons to send")] = 400,
    seed: Annotated[int, typer.Option(help="seed of the qualities and the judges")] = 1,
    labels: Annotated[
        int,
        typer.Option(
            min=0,
            max=5000,
            help="then post this many gold labels on demo comparisons drawn from the random "
            "labeling queue, by simulated labelers that follow the hidden qualities",
        ),
    ] = 0,
    purge: Annotated[
        bool,
        typer.Option(
            "--purge",
            help="retire the demo judges and delete the demo's comparisons, both through the "
            "server at --url",
        ),
    ] = False,
) -> None:
    """Show the bias report at work: three simulated judges (position-biased, label-biased,
    fair) judge comparisons tagged fairpair:demo on the running service, then the report."""
    from app.demo import DemoError
    from app.errors import AppError

    try:
        if purge:
            retired, (comparisons, calls) = asyncio.run(_demo_purge(url, key))
        else:
            data = asyncio.run(_demo_run(url, key, count, seed, labels))
    except (DemoError, AppError) as exc:
        typer.echo(f"demo failed: {getattr(exc, 'detail', None) or exc}", err=True)
        raise typer.Exit(2) from exc
    if purge:
        typer.echo(f"retired judges: {', '.join(retired) or 'none found'}")
        typer.echo(f"deleted {comparisons} demo comparisons and {calls} calls on {url}")
        return
    typer.echo(_render_report(data))
    typer.echo("\n".join(_demo_guide(data, url)))
    typer.echo(_demo_cards(data["demo_cards"]))
