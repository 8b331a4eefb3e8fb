"""`fairpair sim-judge` turns its options into the simulated judge's knobs."""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

import app.simjudge.server as sim_server
from app.cli import app
from app.judging.types import SimKnobs


def test_every_option_but_the_address_is_the_knob_of_the_same_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    served: list[tuple[Any, ...]] = []

    def run(
        host: str, port: int, knobs: SimKnobs, *, reasoning: bool, answer_ids: bool, azure: bool
    ) -> None:
        served.append((host, port, knobs, reasoning, answer_ids, azure))

    monkeypatch.setattr(sim_server, "run_sim_judge", run)
    args = ["sim-judge", "--port", "9000", "--tie-rate", "0.2", "--offsets", "a=1,b=-0.5"]
    assert CliRunner().invoke(app, [*args, "--seed", "7"]).exit_code == 0
    assert CliRunner().invoke(app, ["sim-judge"]).exit_code == 0
    assert CliRunner().invoke(app, ["sim-judge", "--reasoning"]).exit_code == 0
    assert CliRunner().invoke(app, ["sim-judge", "--answer-ids"]).exit_code == 0
    assert CliRunner().invoke(app, ["sim-judge", "--azure"]).exit_code == 0
    knobs = SimKnobs(tie_rate=0.2, offsets={"a": 1.0, "b": -0.5}, seed=7)
    assert served == [
        ("127.0.0.1", 9000, knobs, False, False, False),
        ("127.0.0.1", 8100, SimKnobs(), False, False, False),
        ("127.0.0.1", 8100, SimKnobs(), True, False, False),
        ("127.0.0.1", 8100, SimKnobs(), False, True, False),
        ("127.0.0.1", 8100, SimKnobs(), False, False, True),
    ]
