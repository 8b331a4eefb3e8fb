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
    return _sha256(_payload(config, {"base_url": config.effective_base_url}))


def legacy_judge_config_hash(config: JudgeConfig) -> str:
    """The hash before it covered the whole base_url (its host only): for the migration's
    downgrade, which must give back the hashes the older code computes."""
    return _sha256(_payload(config, {"base_url_host": config.base_url_host}))


def _payload(config: JudgeConfig, endpoint: dict[str, object]) -> dict[str, object]:
    payload: dict[str, object] = {
        "provider": config.provider,
        "model": config.model,
        # The whole URL (JUDGING.md): another path or port on one host can be another model.
        **endpoint,
        "temperature": config.temperature,
        "templates": effective_template_sources(config.templates),
        "label_pool": [list(pair) for pair in config.effective_label_pool],
        "anonymization": default_anonymizer().source if config.anonymize else None,
    }
    # Added later: unset, they must not give every stored judge a new version.
    if config.is_reasoning:
        payload["reasoning"] = {"effort": config.reasoning_effort}
    if config.max_completion_tokens is not None:
        payload["max_completion_tokens"] = config.max_completion_tokens
    if config.thinking_budget_tokens is not None:
        payload["thinking"] = {"budget_tokens": config.thinking_budget_tokens}
    if config.provider == "azure_openai":
        # The deployment selects the model, the api-version what the service does with a request.
        payload["azure"] = {"deployment": config.deployment, "api_version": config.api_version}
    if config.provider == "sim":
        knobs = asdict(config.sim)
        knobs["offsets"] = dict(sorted(config.sim.offsets.items()))
        if not config.sim.self_preference:
            # A knob added later: unset, it must not give every stored sim judge a new version.
            del knobs["self_preference"]
        # How the sim's provider batch jobs run and end changes no answer, so no version.
        del knobs["batch_delay_s"], knobs["batch_outcome"]
        payload["sim"] = knobs
    return payload


def _sha256(payload: dict[str, object]) -> str:
    encoded = json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(encoded).hexdigest()
