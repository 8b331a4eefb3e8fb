"""A judge's `batch_api` setting and its batch prices (issue 24)."""

from __future__ import annotations

import pytest

from app.judging.types import BatchApiSetting, JudgeConfig, Provider


@pytest.mark.parametrize(
    ("provider", "base_url", "setting", "expected"),
    [
        ("openai", None, "auto", True),  # api.openai.com
        ("openai", "https://api.openai.com/v1", "auto", True),
        ("anthropic", None, "auto", True),  # api.anthropic.com
        ("openai", "http://127.0.0.1:8000/v1", "auto", False),  # vLLM, Ollama: no batch API
        ("openai", "https://openrouter.ai/api/v1", "auto", False),
        ("anthropic", "https://api.openai.com", "auto", False),  # another provider's host
        ("openai", "http://127.0.0.1:8000/v1", "on", True),
        ("openai", None, "off", False),
        ("sim", None, "on", False),  # the in-process sim has no HTTP at all
    ],
)
def test_auto_means_the_official_hosts_only(
    provider: Provider, base_url: str | None, setting: BatchApiSetting, expected: bool
) -> None:
    config = JudgeConfig(
        name="j",
        provider=provider,
        model="m",
        base_url=base_url,
        batch_api=setting,
    )
    assert config.has_batch_api is expected


def test_batch_prices_default_to_half_the_live_ones() -> None:
    live = JudgeConfig(
        name="j", provider="openai", model="m", price_in_per_mtok=2.5, price_out_per_mtok=10
    )
    assert live.batch_prices == (1.25, 5.0)
    own = JudgeConfig(
        name="j",
        provider="openai",
        model="m",
        price_in_per_mtok=2.5,
        price_out_per_mtok=10,
        price_in_per_mtok_batch=1.0,
        price_out_per_mtok_batch=0.0,
    )
    assert own.batch_prices == (1.0, 0.0)


def test_a_bad_setting_or_price_is_refused() -> None:
    with pytest.raises(ValueError, match="batch_api"):
        JudgeConfig(name="j", provider="openai", model="m", batch_api="sometimes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="price_in_per_mtok_batch"):
        JudgeConfig(name="j", provider="openai", model="m", price_in_per_mtok_batch=-1)
