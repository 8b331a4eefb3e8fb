"""`fairpair decide`: an A/B experiment as a CI gate. It submits an experiment from a JSON Lines
file of `{prompt, baseline, candidate}` items (or follows one already running), shows a live
progress line, and exits 0 when the candidate is better, 1 when it is worse or equivalent, 2 when
the experiment ended undecided (out of items, or cancelled) and 3 when the command could not do
its work. Like `fairpair batch` it talks to a server (`--url`, `--key` or FAIRPAIR_URL,
FAIRPAIR_KEY) and never touches a local database.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated, Any

import httpx2
import typer

from app.batch_commands import KEY, URL, CommandError, checked, client, read_items, run
from app.ledger.experiments import Decision, ExperimentStatus

POLL_S = 1.0
EXIT_CODES = {Decision.CANDIDATE_BETTER: 0, Decision.BASELINE_BETTER: 1, Decision.EQUIVALENT: 1}
UNDECIDED, FAILED = 2, 3


def experiment_line(found: dict[str, Any]) -> str:
    """One line: status, items judged, the win rate with its confidence sequence, decision."""
    judged = found["comparisons"]
    if found["items"] is not None:
        judged = f"{found['items_judged']}/{found['items']}"
    rate = found["win_rate"]
    parts = [
        f"{found['status']:<9}",
        f"judged {judged}",
        f"win rate {rate['value']:.3f}" if rate else "",
        f"cs95 [{rate['cs95'][0]:.3f}, {rate['cs95'][1]:.3f}]" if rate else "",
        f"decision {found['decision']}" if found["decision"] else "",
        f"calls saved {found['calls_saved']}" if found["calls_saved"] else "",
    ]
    return "  ".join(part for part in parts if part)


def follow(http: httpx2.Client, name: str, poll_s: float = POLL_S) -> dict[str, Any]:
    """Poll the experiment until it stops running, redrawing its progress line."""
    shown, tty = "", sys.stdout.isatty()
    while True:
        found: dict[str, Any] = checked(http.get(f"/v1/experiments/{name}"))
        line = experiment_line(found)
        if line != shown:
            typer.echo(("\r" + line.ljust(len(shown))) if tty else line, nl=not tty)
            shown = line
        if found["status"] != ExperimentStatus.RUNNING:
            if tty:
                typer.echo()
            return found
        time.sleep(poll_s)


def exit_code(found: dict[str, Any]) -> int:
    """0 candidate better, 1 baseline better or equivalent, 2 undecided."""
    if found["decision"] is None:
        return UNDECIDED
    return EXIT_CODES[Decision(found["decision"])]


def decide(
    name: Annotated[str, typer.Argument(help="the experiment's name")],
    url: URL,
    key: KEY = None,
    items: Annotated[
        Path | None,
        typer.Option(help="JSON Lines of {prompt, baseline, candidate}: submit them first"),
    ] = None,
    baseline: Annotated[str | None, typer.Option(help="the baseline's model name")] = None,
    candidate: Annotated[str | None, typer.Option(help="the candidate's model name")] = None,
    judge: Annotated[list[str] | None, typer.Option(help="a judge (repeat for a panel)")] = None,
    alpha: Annotated[float, typer.Option(help="the error rate the decision allows")] = 0.05,
    margin: Annotated[float, typer.Option(help="differences within it are equivalent")] = 0.0,
    seed: Annotated[int, typer.Option(help="orders the items and their slots")] = 0,
) -> None:
    """Run (with --items) or follow an A/B experiment until it decides; exit 0 when the
    candidate is better, 1 when worse or equivalent, 2 undecided, 3 on an error."""

    def work() -> int:
        with client(url, key) as http:
            if items is not None:
                if baseline is None or candidate is None:
                    raise CommandError("--items needs --baseline and --candidate")
                body: dict[str, Any] = {
                    "name": name,
                    "baseline": baseline,
                    "candidate": candidate,
                    "alpha": alpha,
                    "margin": margin,
                    "seed": seed,
                    "items": read_items(items),
                    **({"judges": judge} if judge else {}),
                }
                checked(http.post("/v1/experiments", json=body))
            return exit_code(follow(http, name))

    raise typer.Exit(run(work, "decide", FAILED))
