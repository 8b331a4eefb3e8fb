"""Rendering of judge prompts from Jinja2 templates, with neutral labels and nonce blocks."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from jinja2 import Environment, StrictUndefined, Template, TemplateError

from app.judging.anonymize import Anonymizer
from app.judging.blocks import parse_response_blocks
from app.judging.labels import (
    draw_label_assignment,
    draw_nonce,
    draw_score_labels,
    format_label_pair,
    validate_label_pool,
)
from app.judging.sandbox import BudgetedSandbox, context_chars, render_within_budget
from app.judging.types import (
    DEFAULT_CRITERIA,
    TEMPLATE_NAMES,
    Criteria,
    LabelPool,
    Rubric,
    RubricLevel,
    TemplateName,
)

MAX_SCORED_RESPONSES = 20
_SAMPLE_RUBRIC = Rubric(1, 5, (RubricLevel(1, "bad", ("an anchor",)), RubricLevel(5, "good")))


class PromptTooLongError(ValueError):
    """The responses of one scoring call exceed the per-call character limit."""


class TemplateRenderError(ValueError):
    """A judge's own template failed on this call's inputs, or ran over its budget."""

    def __init__(self, name: str, err: Exception) -> None:
        super().__init__(f"template {name} failed: {type(err).__name__}: {err}")
        self.name = name


@dataclass(frozen=True)
class RenderedPrompt:
    """A rendered chat prompt plus what must be recorded to re-render it."""

    system: str
    user: str
    labels: tuple[str, ...]
    nonces: tuple[str, ...]
    texts: tuple[str, ...]
    template_hash: str
    anonymized_replacements: int
    label_pair: str | None = None


@cache
def default_template_sources() -> dict[TemplateName, str]:
    """The packaged default templates, by name."""
    folder = resources.files("app.judging").joinpath("templates")
    return {name: folder.joinpath(f"{name}.j2").read_text("utf-8") for name in TEMPLATE_NAMES}


def effective_template_sources(overrides: Mapping[str, str]) -> dict[TemplateName, str]:
    """Default templates with the configured overrides applied; unknown names are an error."""
    unknown = set(overrides) - set(TEMPLATE_NAMES)
    if unknown:
        raise ValueError(f"unknown template names: {sorted(unknown)}; use {list(TEMPLATE_NAMES)}")
    sources = dict(default_template_sources())
    sources.update({name: src for name, src in overrides.items() if name in TEMPLATE_NAMES})
    return sources


def _format_number(value: float) -> str:
    return f"{value:g}"


def _environment(sandboxed: bool) -> Environment:
    # Templates from API users run in the budgeted sandbox (app/judging/sandbox.py); the
    # packaged ones are trusted and render about twice as fast without the sandbox's checks. No
    # autoescape: the output is a chat message, not HTML, and response texts must reach the
    # judge unchanged.
    env_class = BudgetedSandbox if sandboxed else Environment
    env = env_class(
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        undefined=StrictUndefined,
    )
    env.filters["number"] = _format_number
    return env


def _sha256_json(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


def _criteria_context(criteria: Criteria | None) -> dict[str, Any]:
    if isinstance(criteria, str):
        return {"criteria": list(DEFAULT_CRITERIA), "criteria_text": criteria}
    return {"criteria": list(criteria or DEFAULT_CRITERIA), "criteria_text": None}


def _check_blocks(prompt: RenderedPrompt) -> None:
    """The prompt shows each response once, whole, in its labelled nonce block: a template that
    leaves one out, cuts one or repeats one would have the judge choose blind or be parsed
    wrong."""
    shown = [
        (block.label, block.nonce, block.text)
        for block in parse_response_blocks(f"{prompt.system}\n{prompt.user}")
    ]
    if shown != list(zip(prompt.labels, prompt.nonces, prompt.texts, strict=True)):
        raise ValueError(
            "invalid judge template: the prompt must show every response in its block, as the"
            " packaged template does ({% for r in responses %} with r.label, r.nonce and r.text)"
        )


class PromptRenderer:
    """Renders pairwise and scoring prompts for one judge configuration."""

    def __init__(
        self,
        template_overrides: Mapping[str, str],
        label_pool: LabelPool,
        anonymizer: Anonymizer,
    ) -> None:
        validate_label_pool(label_pool)
        self.sources = effective_template_sources(template_overrides)
        self.label_pool = label_pool
        self.anonymizer = anonymizer
        trusted, sandboxed = _environment(sandboxed=False), _environment(sandboxed=True)
        # The judge's own templates: sandboxed, budgeted, and rendered in a worker thread.
        self.custom = frozenset(template_overrides) & frozenset(TEMPLATE_NAMES)
        try:
            self._templates: dict[str, Template] = {
                name: (sandboxed if name in template_overrides else trusted).from_string(src)
                for name, src in self.sources.items()
            }
        except TemplateError as err:
            raise ValueError(f"invalid judge template: {err}") from err
        self.pairwise_hash = self._hash("pairwise_system", "pairwise_user")
        self.scoring_hash = self._hash("scoring_system", "scoring_user")
        self._try_every_template()

    def _try_every_template(self) -> None:
        """Render once with sample values, so a broken template fails when the judge is built."""
        rng = random.Random(0)
        try:
            samples = [
                self.render_pair("task", "one", "two", rng=rng, reference="reference"),
                self.render_pair("task", "one", "two", rng=rng, criteria="criteria"),
                self.render_scores("task", ["one", "two"], _SAMPLE_RUBRIC, rng=rng, max_chars=100),
            ]
        except (TemplateError, TemplateRenderError) as err:
            raise ValueError(f"invalid judge template: {err}") from err
        for prompt in samples:
            _check_blocks(prompt)

    def _hash(self, system: TemplateName, user: TemplateName) -> str:
        return _sha256_json([self.sources[system], self.sources[user]])

    def _anonymize_all(self, texts: Sequence[str]) -> tuple[list[str], int]:
        results = [self.anonymizer.anonymize(text) for text in texts]
        return [text for text, _ in results], sum(count for _, count in results)

    def _blocks(
        self, labels: Sequence[str], texts: Sequence[str], rng: random.Random
    ) -> list[dict[str, str]]:
        # Checking every text of the call (not only the block's own) keeps any block from
        # being closed early by a marker planted in another response.
        all_texts = "\n".join(texts)
        return [
            {"label": label, "nonce": draw_nonce(rng, all_texts), "text": text}
            for label, text in zip(labels, texts, strict=True)
        ]

    def _render(self, kind: str, context: dict[str, Any]) -> tuple[str, str]:
        system = self._render_one(f"{kind}_system", context)
        user = self._render_one(f"{kind}_user", context)
        return system.strip(), user.strip()

    def _render_one(self, name: str, context: dict[str, Any]) -> str:
        template = self._templates[name]
        if name not in self.custom:
            return template.render(context)
        try:
            return render_within_budget(lambda: template.generate(context), context_chars(context))
        except Exception as err:  # a user's template may raise anything; it fails its call
            raise TemplateRenderError(name, err) from err

    def render_pair(
        self,
        task: str,
        first_text: str,
        second_text: str,
        *,
        rng: random.Random,
        criteria: Criteria | None = None,
        reference: str | None = None,
    ) -> RenderedPrompt:
        """Render one pairwise call: labels drawn from the pool, texts in nonce blocks."""
        pair, first_label, second_label = draw_label_assignment(self.label_pool, rng)
        texts, replaced = self._anonymize_all([first_text, second_text])
        blocks = self._blocks([first_label, second_label], texts, rng)
        context = {
            "task": task,
            "reference": reference,
            "responses": blocks,
            "labels": [first_label, second_label],
            **_criteria_context(criteria),
        }
        system, user = self._render("pairwise", context)
        return RenderedPrompt(
            system=system,
            user=user,
            labels=(first_label, second_label),
            nonces=tuple(b["nonce"] for b in blocks),
            texts=tuple(texts),
            template_hash=self.pairwise_hash,
            anonymized_replacements=replaced,
            label_pair=format_label_pair(pair),
        )

    def render_scores(
        self,
        task: str,
        shown_texts: Sequence[str],
        rubric: Rubric,
        *,
        rng: random.Random,
        max_chars: int,
        criteria: Criteria | None = None,
    ) -> RenderedPrompt:
        """Render one scoring call over 1..20 responses in the given shown order."""
        if not 1 <= len(shown_texts) <= MAX_SCORED_RESPONSES:
            raise ValueError(f"a scoring call shows 1..{MAX_SCORED_RESPONSES} responses")
        texts, replaced = self._anonymize_all(shown_texts)
        total = sum(len(text) for text in texts)
        if total > max_chars:
            raise PromptTooLongError(
                f"responses total {total} characters; one scoring call allows {max_chars}"
            )
        labels = draw_score_labels(len(texts), rng)
        blocks = self._blocks(labels, texts, rng)
        context = {
            "task": task,
            "reference": None,
            "responses": blocks,
            "labels": list(labels),
            "rubric": rubric,
            **_criteria_context(criteria),
        }
        system, user = self._render("scoring", context)
        return RenderedPrompt(
            system=system,
            user=user,
            labels=labels,
            nonces=tuple(b["nonce"] for b in blocks),
            texts=tuple(texts),
            template_hash=self.scoring_hash,
            anonymized_replacements=replaced,
        )
