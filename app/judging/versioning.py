"""The judge version: a hash of everything that changes what a judge is asked."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict

from app.judging.anonymize import default_anonymizer
from app.judging.prompts import effective_template_sources
from app.judging.types import JudgeConfig


def judge_config_hash(config: JudgeConfig) -> str:
    """The judge version: sha256 hex of what changes the prompt or the model asked."""
    payload: dict[str, object] = {
        "provider": config.provider,
        "model": config.model,
        "base_url_host": config.base_url_host,
        "temperature": config.temperature,
        "templates": effective_template_sources(config.templates),
        "label_pool": [list(pair) for pair in config.effective_label_pool],
        "anonymization": default_anonymizer().source if config.anonymize else None,
    }
    if config.provider == "sim":
        knobs = asdict(config.sim)
        knobs["offsets"] = dict(sorted(config.sim.offsets.items()))
        payload["sim"] = knobs
    encoded = json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(encoded).hexdigest()
