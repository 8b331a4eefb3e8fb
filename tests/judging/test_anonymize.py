"""Anonymization removes self-identification only; the patterns are data."""

from __future__ import annotations

import re
import tomllib
from importlib import resources

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

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
        # `(?=I\b)` in the data: "Iñaki" is one word, whatever RE2's ASCII `\b` thinks.
        "As an AI Iñaki would know.",
    ],
)
def test_bare_mentions_of_models_keep_their_content(text: str) -> None:
    assert default_anonymizer().anonymize(text) == (text, 0)


def test_patterns_come_from_data() -> None:
    anonymizer = anonymizer_from_toml(
        'names = ["Robo"]\norgs = ["Acme"]\npatterns = ["Beep, I am {name} of {org}\\\\. "]'
    )
    assert anonymizer.anonymize("Beep, I am Robo-2 of Acme. Hello") == ("Hello", 1)


def _anonymize_with_re(text: str) -> tuple[str, int]:
    """The anonymizer as it was under Python's `re` (lookarounds and Unicode `\\b` included)."""
    source = resources.files("app.judging").joinpath("data/anonymize.toml").read_text("utf-8")
    data = tomllib.loads(source)

    def alternation(words: list[str]) -> str:
        return "(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + ")"

    words = "mini|pro|flash|turbo|sonnet|opus|haiku|instruct|chat|coder|max|plus|ultra|nano|lite"
    suffix = rf"(?:[-. ]?(?:\d[\w.]*|[a-z]{{1,4}}\d[\w.]*|{words}))*"
    start = r"(?:^[ \t]*|(?<=[.!?:;] )|(?<=[.!?:;]))"
    name = alternation(data["names"]) + suffix + r"\b"
    org = alternation(data["orgs"]) + r"\b"
    removed = 0
    for pattern in data["patterns"]:
        compiled = re.compile(
            pattern.replace("{start}", start).replace("{name}", name).replace("{org}", org),
            re.IGNORECASE | re.MULTILINE,
        )
        text, count = compiled.subn("", text)
        removed += count
    return text, removed


# Pieces of self-identification phrases and their near-misses; the alphabet is ASCII plus `’`,
# because RE2's `\b` knows ASCII word characters only (a name glued to a non-ASCII letter, as in
# "I am GPT-4é.", is the known difference).
PIECES = (
    "As|as|an|a|AI|artificial intelligence| language model| assistant| model|I|"
    "I am|I'm|I’m|my name is|My name is|Claude|GPT|Llama|Command R|OpenAI|"
    "Google DeepMind|Google|xAI| developed by | made by |-4o|-4| 3.1| 70B|"
    " Instruct|mini|o1| |  |\t|\n|.|,|!|?|:|;|x|Sure|2|_"
).split("|")


@settings(max_examples=2000, deadline=None, database=None, derandomize=True)
@given(st.lists(st.sampled_from(PIECES), max_size=16).map("".join))
# A phrase whose sentence start is the end of the phrase just removed (the lookbehind's context
# lies inside that removal).
@example("My name is Claude.My name is GPT-4.")
@example("My name is Claude! My name is GPT-4, hi")
@example("x. my name is Llama 3.1 70B Instruct.\tMy name is Claude")
def test_removals_are_those_of_the_former_re_patterns(text: str) -> None:
    assert default_anonymizer()._scan(text) == _anonymize_with_re(text)
