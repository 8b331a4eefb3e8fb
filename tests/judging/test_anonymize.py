"""Anonymization removes self-identification only; the patterns are data."""

from __future__ import annotations

import pytest

from app.judging.anonymize import anonymizer_from_toml, default_anonymizer


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("As an AI language model, I cannot browse.", "I cannot browse."),
        ("I am Claude, an AI assistant made by Anthropic. Hi.", "Hi."),
        ("I'm GPT-4o-mini. The answer is 4.", "The answer is 4."),
        ("I am an AI assistant developed by OpenAI. Sure.", "Sure."),
        ("Sure. As Gemini, I would say yes.", "Sure. I would say yes."),
        ("My name is Llama 3.1 70B Instruct.\nAnswer: 4", "\nAnswer: 4"),
    ],
)
def test_self_identification_phrases_are_removed(text: str, expected: str) -> None:
    assert default_anonymizer().anonymize(text) == (expected, 1)


@pytest.mark.parametrize(
    "text",
    [
        "GPT-4 is a model by OpenAI.",
        "As GPT-4 showed, scaling helps.",
        "Models such as Gemini, GPT-4 and Claude differ.",
        "As an AI researcher, I disagree.",
        "Claude 3 Opus and Llama 3 were compared; I am Phil.",
    ],
)
def test_bare_mentions_of_models_keep_their_content(text: str) -> None:
    assert default_anonymizer().anonymize(text) == (text, 0)


def test_patterns_come_from_data() -> None:
    anonymizer = anonymizer_from_toml(
        'names = ["Robo"]\norgs = ["Acme"]\npatterns = ["Beep, I am {name} of {org}\\\\. "]'
    )
    assert anonymizer.anonymize("Beep, I am Robo-2 of Acme. Hello") == ("Hello", 1)
