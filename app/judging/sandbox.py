"""The sandbox that judges' own templates (posted through the API) render in.

Jinja's sandbox keeps a template from Python's internals; it does not bound what a render costs.
This one adds:
- no other templates: `include`, `extends`, `import` and `from` are refused at compile time
  (there is no loader, so they could only fail, and did so as a 500);
- no mutation of lists or dicts (the immutable sandbox), so a structure grows only through the
  operators checked below;
- a time budget: while a template renders, a trace function of the rendering thread checks the
  clock on every line the render runs (loops over ranges or texts included) and stops it once the
  budget is spent;
- an output budget: the rendered text, every `~` concatenation, `+` and `*` of strings and lists,
  `%` formats and the filters that take a size (center, indent, format, replace, batch, slice,
  join) are checked against it before the text is built, so one expression cannot allocate
  gigabytes inside the time budget; integer powers are capped;
- no `lipsum` (it builds text of any size and has no use in a judge prompt).

A render over either budget raises `TemplateBudgetError`. The time budget is wall time: it is
generous (a judge's template renders in a millisecond) so that a busy machine never fails one.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from types import FrameType
from typing import Any

from jinja2 import TemplateError, filters, nodes, pass_eval_context
from jinja2.compiler import CodeGenerator, Frame
from jinja2.runtime import Context
from jinja2.sandbox import ImmutableSandboxedEnvironment

from app.textpatterns import compile_linear

# How long one render (one message of one call) may take, and the output it may make beyond
# what it is given (the texts, the task, the reference, twice over).
RENDER_BUDGET_S = 0.5
RENDER_BASE_CHARS = 1_000_000
# The largest exponent of an integer power (2 ** 10_000 has 3,011 digits).
MAX_EXPONENT = 10_000
# A width or precision in a `%` format, e.g. %99999999d.
_FORMAT_WIDTH = compile_linear(r"%[-#0 +]*(\*|[0-9]+)?(?:\.(\*|[0-9]+))?")
# The file name of code compiled from a template string (`Environment.from_string`).
_TEMPLATE_FILE = "<template>"
_REFERENCES = (nodes.Include, nodes.Extends, nodes.Import, nodes.FromImport)


class TemplateBudgetError(TemplateError):
    """A judge's template took longer, or made more text, than one render may."""


@dataclass(frozen=True)
class _Budget:
    deadline: float
    max_chars: int


_BUDGET: ContextVar[_Budget | None] = ContextVar("template_budget", default=None)


def check_size(chars: int) -> None:
    """Refuse text (or a structure) of `chars` over the current render's output budget."""
    budget = _BUDGET.get()
    limit = budget.max_chars if budget is not None else RENDER_BASE_CHARS
    if chars > limit:
        raise TemplateBudgetError(f"the template makes over {limit:,} characters")


def _weight(value: object) -> int:
    """The characters a value prints as, roughly and cheaply (a list counts its strings)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, list | tuple):
        return len(value) + sum(len(item) if isinstance(item, str) else 8 for item in value)
    return 0


def _check_format(template: object) -> None:
    if not isinstance(template, str):
        return
    for match in _FORMAT_WIDTH.finditer(template):
        for size in (match.group(1), match.group(2)):
            if size == "*" or (size is not None and int(size) > RENDER_BASE_CHARS):
                raise TemplateBudgetError(f"the format width {size} is over the budget")


class _CheckedCodeGenerator(CodeGenerator):
    """Compiles `~` into a checked join: `environment.checked_concat((...))`."""

    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        self.write("environment.checked_concat((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")


def _checked_filters() -> dict[str, Callable[..., Any]]:
    """The filters that take a size, each checking the size first."""
    sized: dict[str, Callable[..., int]] = {
        "center": lambda value, width=80: max(len(str(value)), int(width)),
        "indent": lambda s, width=4, *_args, **_kwargs: (
            len(str(s))
            + (str(s).count("\n") + 1) * (len(width) if isinstance(width, str) else int(width))
        ),
        "replace": lambda _ctx, s, old, new, count=None: (
            len(str(s)) + (len(str(s)) + 1) * len(str(new))
        ),
        "batch": lambda value, linecount, fill_with=None: int(linecount),
        "slice": lambda value, slices, fill_with=None: int(slices),
    }
    checked: dict[str, Callable[..., Any]] = {}
    for name, size in sized.items():
        checked[name] = _checking(filters.FILTERS[name], size)

    def format_checked(value: str, *args: Any, **kwargs: Any) -> str:
        _check_format(value)
        result: str = filters.FILTERS["format"](value, *args, **kwargs)
        return result

    def join_checked(
        eval_ctx: Any, value: Iterable[Any], d: str = "", attribute: Any = None
    ) -> str:
        items = list(value)
        check_size(sum(len(str(item)) for item in items) + len(d) * len(items))
        result: str = filters.FILTERS["join"](eval_ctx, items, d, attribute)
        return result

    checked["format"] = format_checked
    checked["join"] = pass_eval_context(join_checked)
    return checked


def _checking(original: Callable[..., Any], size: Callable[..., int]) -> Callable[..., Any]:
    def checked(*args: Any, **kwargs: Any) -> Any:
        check_size(size(*args, **kwargs))
        return original(*args, **kwargs)

    # Jinja passes the eval context (replace) or environment by this mark of the original.
    if hasattr(original, "jinja_pass_arg"):
        checked.jinja_pass_arg = original.jinja_pass_arg  # type: ignore[attr-defined]
    return checked


class BudgetedSandbox(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox without references to other templates, with checked sizes."""

    intercepted_binops = frozenset({"*", "+", "**", "%"})
    code_generator_class = _CheckedCodeGenerator

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.globals.pop("lipsum", None)
        # `urlize` runs Jinja's own (backtracking) patterns over the text it is given, a
        # submitted response here, where the render budget cannot stop it; no prompt needs links.
        self.filters.pop("urlize", None)
        self.filters.update(_checked_filters())

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        tree = super()._parse(source, name, filename)
        for node in tree.find_all(_REFERENCES):
            kind = type(node).__name__.lower().replace("fromimport", "from-import")
            raise TemplateBudgetError(f"a judge's template cannot use other templates ({kind})")
        return tree

    def checked_concat(self, parts: tuple[Any, ...]) -> str:
        """`a ~ b`, its size checked first."""
        texts = [str(part) for part in parts]
        check_size(sum(map(len, texts)))
        return "".join(texts)

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        """`*`, `+`, `**` and `%` with their results' sizes checked before they are built."""
        if operator == "**" and isinstance(right, int) and abs(right) > MAX_EXPONENT:
            raise TemplateBudgetError(f"an exponent over {MAX_EXPONENT}")
        if operator == "*":
            count = right if isinstance(right, int) else left if isinstance(left, int) else 1
            check_size(max(_weight(left), _weight(right)) * max(count, 0))
        if operator == "+":
            check_size(_weight(left) + _weight(right))
        if operator == "%":
            _check_format(left)
        return super().call_binop(context, operator, left, right)


def render_within_budget(
    render: Callable[[], Iterable[str]], inputs_chars: int, seconds: float = RENDER_BUDGET_S
) -> str:
    """Join the chunks `render()` yields, within the time and output budget (this thread's)."""
    budget = _Budget(time.monotonic() + seconds, RENDER_BASE_CHARS + 2 * inputs_chars)
    token = _BUDGET.set(budget)
    previous = sys.gettrace()

    def on_line(frame: FrameType, event: str, arg: object) -> Any:
        if time.monotonic() > budget.deadline:
            raise TemplateBudgetError(f"the template ran over its {seconds:g} s budget")
        return on_line

    def on_call(frame: FrameType, event: str, arg: object) -> Any:
        # Only the template's own code: tracing Jinja's runtime too made renders 20x slower.
        return on_line if frame.f_code.co_filename == _TEMPLATE_FILE else None

    sys.settrace(on_call)
    try:
        chunks, size = [], 0
        for chunk in render():
            size += len(chunk)
            check_size(size)
            chunks.append(chunk)
        return "".join(chunks)
    finally:
        sys.settrace(previous)
        _BUDGET.reset(token)


def context_chars(context: Mapping[str, Any]) -> int:
    """The characters of the texts a render is given: the task, the reference, the responses."""
    texts = [context.get("task"), context.get("reference")]
    texts += [block["text"] for block in context.get("responses", ())]
    return sum(len(text) for text in texts if isinstance(text, str))
