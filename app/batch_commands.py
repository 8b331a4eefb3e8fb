"""`fairpair batch`: submit a JSONL file of items to a server, follow it, list batches, and
download the results, the way `/v1/batches` serves them (`--url`, `--key` or FAIRPAIR_URL,
FAIRPAIR_KEY).

A batch runs on a server's queue, so every command talks to one; none touches a local database.
`submit --follow` exits 0 when every item completed, 1 when the batch failed, was cancelled or
some items failed, and 2 when the command itself could not do its work: a pipeline can gate on it.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

import httpx2
import typer

from app.batches.models import BatchStatus

batch_app = typer.Typer(
    help="Submit, follow, list and download batches on a server.", no_args_is_help=True
)

URL = Annotated[str, typer.Option(envvar="FAIRPAIR_URL", help="the server")]
KEY = Annotated[str | None, typer.Option(envvar="FAIRPAIR_KEY", help="an API key")]
FINISHED = (BatchStatus.COMPLETED, BatchStatus.FAILED, BatchStatus.CANCELLED)
POLL_S = 1.0
HTTP_TIMEOUT_S = 120.0


class CommandError(Exception):
    """What went wrong, in one line for the terminal."""


def client(url: str, key: str | None) -> httpx2.Client:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx2.Client(base_url=url.rstrip("/"), headers=headers, timeout=HTTP_TIMEOUT_S)


def checked(response: httpx2.Response) -> Any:
    """The JSON body of a 2xx answer; otherwise the problem's detail as a `CommandError`."""
    if response.is_success:
        return response.json()
    try:
        detail = response.json().get("detail") or response.text
    except ValueError:
        detail = response.text
    raise CommandError(f"{response.status_code} from the server: {detail}")


def read_items(path: Path) -> list[dict[str, Any]]:
    """The file's items, one JSON object per line (blank lines skipped)."""
    items = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"cannot read {path}: {exc}") from exc
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CommandError(f"{path}:{number}: not JSON ({exc.msg})") from exc
        if not isinstance(item, dict):
            raise CommandError(f"{path}:{number}: an item is a JSON object")
        items.append(item)
    if not items:
        raise CommandError(f"{path}: no items")
    return items


def idempotency_key(items: list[dict[str, Any]], mode: str) -> str:
    """The same file submitted twice is one batch: the server replays the first answer."""
    body = json.dumps({"items": items, "mode": mode}, sort_keys=True).encode()
    return "fairpair-batch-" + hashlib.sha256(body).hexdigest()[:48]


def eta(batch: dict[str, Any], now: datetime) -> str:
    """Time left at the rate items finished so far, or `?` before there is a rate."""
    started, done = batch.get("started_at"), batch["progress"]
    if not started or done <= 0 or done >= 1:
        return "?"
    elapsed = (now - datetime.fromisoformat(started)).total_seconds()
    left_s = max(0.0, elapsed * (1 - done) / done)
    return f"{int(left_s // 60)}m{int(left_s % 60):02d}s"


def cost_text(batch: dict[str, Any]) -> str:
    """The batch's cost: priced calls in dollars, and the calls with no price said as unknown,
    never as $0."""
    unpriced = batch.get("unpriced_calls") or 0
    if unpriced and not batch["cost_usd"]:
        return "cost unknown (no prices)"
    priced = f"${batch['cost_usd']:.4f}"
    return f"{priced} + {unpriced} calls unpriced" if unpriced else priced


def rate_limit_text(until: str | None, now: datetime) -> str:
    """`rate-limited Ns` while the batch's items wait on a judge's rpm or a provider's 429 (a
    wait, not a hang); nothing once it has passed."""
    if until is None:
        return ""
    seconds = (datetime.fromisoformat(until) - now).total_seconds()
    return f"rate-limited {seconds:.0f}s" if seconds > 0 else ""


def progress_line(batch: dict[str, Any], now: datetime) -> str:
    """One line: status, items done, what the rest wait on, cost, time left."""
    counts, total = batch["counts"], batch["total"]
    done = counts["completed"] + counts["failed"] + counts["cancelled"]
    width = 24
    filled = int(width * done / total) if total else width
    bar = "#" * filled + "." * (width - filled)
    parts = [
        f"{batch['status']:<9}",
        f"[{bar}] {done}/{total}",
        f"running {counts['running']}",
        f"at a provider {counts['waiting']}" if counts["waiting"] else "",
        rate_limit_text(batch.get("rate_limited_until"), now),
        f"failed {counts['failed']}" if counts["failed"] else "",
        cost_text(batch),
        f"eta {eta(batch, now)}" if batch["status"] not in FINISHED else "",
    ]
    return "  ".join(part for part in parts if part)


def follow(http: httpx2.Client, batch_id: str) -> dict[str, Any]:
    """Poll the batch until it finishes, redrawing one progress line (a line per change when
    the output is not a terminal)."""
    shown, tty = "", sys.stdout.isatty()
    while True:
        batch: dict[str, Any] = checked(http.get(f"/v1/batches/{batch_id}"))
        line = progress_line(batch, datetime.now(UTC))
        if line != shown:
            typer.echo(("\r" + line.ljust(len(shown))) if tty else line, nl=not tty)
            shown = line
        if batch["status"] in FINISHED:
            if tty:
                typer.echo()
            return batch
        time.sleep(POLL_S)


def outcome_code(batch: dict[str, Any]) -> int:
    """0 when every item completed; 1 otherwise."""
    return 0 if batch["status"] == BatchStatus.COMPLETED and not batch["counts"]["failed"] else 1


def run(action: Any, command: str = "batch", failed: int = 2) -> Any:
    """Run a command's work; a failure is one line on stderr and exit code `failed`."""
    try:
        return action()
    except CommandError as exc:
        typer.echo(f"{command}: {exc}", err=True)
    except (httpx2.HTTPError, httpx2.InvalidURL) as exc:
        typer.echo(f"{command}: cannot reach the server: {exc}", err=True)
    raise typer.Exit(failed)


@batch_app.command()
def submit(
    file: Annotated[Path, typer.Argument(help="JSON Lines: one {item_id?, compare|score} a line")],
    url: URL,
    key: KEY = None,
    mode: Annotated[
        Literal["live", "provider"], typer.Option(help="provider: through providers' batch APIs")
    ] = "live",
    follow_it: Annotated[
        bool, typer.Option("--follow", help="show progress until it finishes; exit 0/1")
    ] = False,
) -> None:
    """Submit the file's items as one batch and print its id (the same file twice is one batch)."""

    def work() -> int:
        items = read_items(file)
        with client(url, key) as http:
            headers = {"Idempotency-Key": idempotency_key(items, mode)}
            body = {"items": items, "mode": mode}
            batch = checked(http.post("/v1/batches", json=body, headers=headers))
            typer.echo(batch["id"])
            return outcome_code(follow(http, batch["id"])) if follow_it else 0

    raise typer.Exit(run(work))


@batch_app.command()
def status(
    batch_id: str,
    url: URL,
    key: KEY = None,
    follow_it: Annotated[
        bool, typer.Option("--follow", help="until it finishes; exit 0/1")
    ] = False,
) -> None:
    """Print a batch's progress line, once or (--follow) until it finishes."""

    def work() -> int:
        with client(url, key) as http:
            if follow_it:
                return outcome_code(follow(http, batch_id))
            batch = checked(http.get(f"/v1/batches/{batch_id}"))
            typer.echo(progress_line(batch, datetime.now(UTC)))
            return 0

    raise typer.Exit(run(work))


@batch_app.command("list")
def list_batches(
    url: URL,
    key: KEY = None,
    status_filter: Annotated[str | None, typer.Option("--status", help="only this status")] = None,
    limit: Annotated[int, typer.Option(min=1, max=100)] = 20,
) -> None:
    """The newest batches, one line each: id, created, mode, and progress."""

    def work() -> int:
        params: dict[str, str | int] = {"limit": limit}
        if status_filter:
            params["status"] = status_filter
        with client(url, key) as http:
            page = checked(http.get("/v1/batches", params=params))
        for batch in page["items"]:
            created = batch["created_at"][:19].replace("T", " ")
            line = progress_line(batch, datetime.now(UTC))
            typer.echo(f"{batch['id']}  {created}  {batch['mode']:<8}  {line}")
        return 0

    raise typer.Exit(run(work))


def download(http: httpx2.Client, batch_id: str, form: str, out: Path) -> int:
    """Stream the results into `out`; the bytes written."""
    written = 0
    path = f"/v1/batches/{batch_id}/results"
    with http.stream("GET", path, params={"format": form}) as response:
        if not response.is_success:
            response.read()
            checked(response)
        with out.open("wb") as sink:
            for chunk in response.iter_bytes():
                written += sink.write(chunk)
    return written


@batch_app.command()
def results(
    batch_id: str,
    url: URL,
    key: KEY = None,
    out: Annotated[Path, typer.Option(help="the file to write")] = Path("results.jsonl"),
    form: Annotated[
        Literal["jsonl", "csv"], typer.Option("--format", help="jsonl (every field) or csv")
    ] = "jsonl",
) -> None:
    """Download every item's result as one file."""

    def work() -> int:
        with client(url, key) as http:
            written = download(http, batch_id, form, out)
        typer.echo(f"wrote {written} bytes to {out}")
        return 0

    raise typer.Exit(run(work))
