"""Every parser of model text, on replies nobody wrote by hand: repeated markup of every
family's tags and brackets, mixtures, unicode, up to about a megabyte.

The parsers are taken from the registries (prompt families' `parse`, output decoders,
`--tool-call-format` parsers, the return formats, the Java and JavaScript decoders, with and
without the `<TOOLCALL>` tag), and the markup from the
string constants of the modules that define them, so a new family is covered without a line
here. Two properties:

* time linear in the input: a parser given `n` and `4 n` characters of one repeated piece
  takes well under 16 times as long on the longer (a parser that rescans the rest of the
  text from every opening tag takes 16 times as long);
* nothing escapes the stage that owns the parser: generation records a reply it cannot read
  as a failure of the case (`PermanentError`), scoring as a decode failure (`DecodeError`),
  and a tool-call parser finds calls or none. Each call is timed.
"""

from __future__ import annotations

import contextlib
import importlib
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import FrameType, ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcbench.core.categories import Language
from fcbench.decode import families as decoders
from fcbench.decode import python_calls, tool_call_formats
from fcbench.decode.budget import MAX_REPLY_CHARS, MAX_TEXT_CHARS, parse_seconds
from fcbench.decode.encoding import Encoding, decode_ast
from fcbench.decode.errors import DecodeError
from fcbench.decode.execute import decode_execute
from fcbench.decode.python_calls import ReturnFormat, decode_prompt
from fcbench.models import families
from fcbench.models.base import PermanentError
from fcbench.models.completions import CompletionsBackend
from fcbench.models.openai_compat import OpenAICompatBackend


@dataclass(frozen=True)
class Target:
    """One parser: what it is called, how to run it on a text, and the module whose
    constants hold its markup."""

    name: str
    run: Callable[[str], Any]
    """The parser itself."""
    stage: Callable[[str], Any]
    """The parser as its stage calls it: the outcome the stage records (a value, a
    `DecodeError`, a `PermanentError`); any exception it raises escaped the stage."""
    modules: tuple[ModuleType, ...]
    grammar: bool = False
    """A tree-sitter decoder: its bound is the decoding budget's parse time, not a ratio."""


def _module_of(spec: str) -> ModuleType:
    return importlib.import_module(spec.partition(":")[0])


def _decoder_modules(name: str) -> tuple[ModuleType, ...]:
    """The module of the output decoder a prompt family's results are read with."""
    spec = decoders.DECODERS.get(name)
    return (_module_of(spec),) if spec else ()


def _decoder_ast(name: str) -> Callable[[str], Any]:
    return lambda text: decoders.decoder(name).ast(text, Language.PYTHON)


def _decoder_execute(name: str) -> Callable[[str], Any]:
    return lambda text: decoders.decoder(name).execute(text)


def _recorded(call: Callable[[], Any], *recorded: type[Exception]) -> Any:
    """What a stage keeps of `call`: its value, or the failure it records on the case."""
    try:
        return call()
    except recorded as exc:
        return exc


def _scored_ast(name: str) -> Callable[[str], Any]:
    encoding = Encoding(family=name)
    return lambda text: _recorded(lambda: decode_ast(text, encoding), DecodeError)


def _scored_execute(name: str) -> Callable[[str], Any]:
    encoding = Encoding(family=name)
    return lambda text: _recorded(lambda: decode_execute(text, encoding), DecodeError)


def _generated(name: str) -> Callable[[str], Any]:
    """A completion read at generation: a reply, or a failure recorded on the case; a reply
    past the decoding budget kept as it came, unread, marked over budget."""
    backend = CompletionsBackend("m", ["http://127.0.0.1:9/v1"], families.get(name))

    def stage(text: str) -> Any:
        outcome = _recorded(lambda: backend.reply(text, {}), PermanentError)
        if len(text) > MAX_REPLY_CHARS:
            assert outcome.result == text and "over_budget" in outcome.extras, name
        return outcome

    return stage


def _chat(name: str) -> Callable[[str], Any]:
    """A chat reply's text read by `--tool-call-format NAME` at generation (a reply past the
    budget kept unread), and the parser itself: calls or none, never an exception."""
    backend = OpenAICompatBackend("m", ["http://127.0.0.1:9/v1"], output_format=name)

    def stage(text: str) -> Any:
        body = {"choices": [{"message": {"role": "assistant", "content": text}}]}
        reply = backend.parse(body, "fc", 0.0, "u")
        if len(text) > MAX_REPLY_CHARS:
            assert reply.result == text and "over_budget" in reply.extras, name
        found = tool_call_formats.PARSERS[name](text)
        assert found is None or (isinstance(found, list) and all(
            isinstance(call, dict) for call in found)), name
        return reply

    return stage


def _grammar(language: Language, tag: bool) -> Callable[[str], Any]:
    encoding = Encoding(tool_call_tag=tag)
    return lambda text: _recorded(lambda: decode_ast(text, encoding, language), DecodeError)


def _prompt(fmt: ReturnFormat, tag: bool) -> Callable[[str], Any]:
    """Prompt mode in one of the return formats of the format-sensitivity categories, with
    or without the `<TOOLCALL>` tag."""
    return lambda text: _recorded(lambda: decode_prompt(text, fmt, tag), DecodeError)


def targets() -> list[Target]:
    """Every parser of model text the registries hold (one per distinct decoder)."""
    found = [Target(f"prompt:{name}", families.get(name).parse, _generated(name),
                    (importlib.import_module(families.FAMILIES[name]),
                     *_decoder_modules(families.get(name).decoder_name)))
             for name in families.names()]
    seen: set[str] = set()
    for name, spec in decoders.DECODERS.items():
        if spec in seen:
            continue
        seen.add(spec)
        module = (_module_of(spec),)
        found.append(Target(f"decoder-ast:{name}", _decoder_ast(name), _scored_ast(name),
                            module))
        found.append(Target(f"decoder-execute:{name}", _decoder_execute(name),
                            _scored_execute(name), module))
    for name in tool_call_formats.names():
        found.append(Target(f"tool-call-format:{name}", tool_call_formats.PARSERS[name],
                            _chat(name), (tool_call_formats,)))
    prompt = (python_calls,)
    for fmt in ReturnFormat:
        for tag in (False, True):
            name = f"return-format:{fmt.value}" + ("+tag" if tag else "")
            found.append(Target(name, _prompt(fmt, tag), _prompt(fmt, tag), prompt))
    for language in (Language.JAVA, Language.JAVASCRIPT):
        grammar = importlib.import_module(f"fcbench.decode.{language.value}")
        for tag in (False, True):
            name = language.value + ("+tag" if tag else "")
            found.append(Target(name, _grammar(language, tag), _grammar(language, tag),
                                (grammar, python_calls) if tag else (grammar,), grammar=True))
    return found


TARGETS = targets()

BRACKETS = ["[", "{", "(", "'", '"', "\\", ",", "=", ":", "\n", "f(", "[f(a=", '{"name": ',
            "```", "<", ">"]
"""Markup every parser meets: the brackets, quotes and call syntax of answers."""


def _constants(module: ModuleType) -> Iterator[str]:
    """The module's short string constants that are markup (tags, markers, fences)."""
    for value in vars(module).values():
        strings = value if isinstance(value, tuple) else (value,)
        for text in strings:
            if (isinstance(text, str) and 0 < len(text) <= 40 and not text.isidentifier()
                    and any(not c.isalnum() and not c.isspace() for c in text)):
                yield text


def markup(target: Target) -> list[str]:
    """The pieces repeated against `target`: its modules' markup alone, opening a list, an
    object or a call, and two of one module's markers around a name (`[TOOL_CALLS]f[ARGS]`),
    and the brackets."""
    pieces = set(BRACKETS)
    for module in target.modules:
        tags = sorted(set(_constants(module)))
        pieces.update(tags)
        pieces.update(tag + opener for tag in tags for opener in ("[", "{", "call:f{", "f("))
        pieces.update(a + "f" + b for a in tags for b in tags if a != b)
    return sorted(pieces)


VOCABULARY = sorted({piece for target in TARGETS for piece in markup(target)})


class Overrun(Exception):
    """A call ran past the alarm set around it (a parser stuck on its input)."""


@contextlib.contextmanager
def alarm(seconds: int, what: str) -> Iterator[None]:
    """Fail instead of hanging: SIGALRM raises in the main thread (the regex engine and
    Python loops check for signals), so a quadratic parser's test ends with its name. A
    timer already running (a per-test time limit) is given back, less the time spent."""

    def ring(signum: int, frame: FrameType | None) -> None:
        raise Overrun(f"{what}: still running after {seconds} s")

    start = time.monotonic()
    previous = signal.signal(signal.SIGALRM, ring)
    outer, interval = signal.setitimer(signal.ITIMER_REAL, seconds)
    if outer:
        signal.setitimer(signal.ITIMER_REAL, min(seconds, outer))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:
            left = max(outer - (time.monotonic() - start), 0.001)
            signal.setitimer(signal.ITIMER_REAL, left, interval)


def seconds_of(run: Callable[[str], Any], text: str, repeats: int = 1) -> float:
    """The fastest of `repeats` runs, or the first when it takes a second (noise is small
    then); the parser may raise: that is its verdict."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        with contextlib.suppress(Exception, RecursionError):
            run(text)
        best = min(best, time.perf_counter() - start)
        if best > 1.0:
            break
    return best


SHORT = 50_000
"""Characters of the shorter text; the longer has four times as many (200,000: the size
where a quadratic parser's time is mostly its quadratic part; the decoders refuse text past
the decoding budget, which is linear too)."""
GRAMMAR_SIZE = 64_000
"""Characters of the one text a tree-sitter decoder is timed on (its parse time is bounded,
not its ratio)."""
RATIO = 8.0
"""How much longer the 4x text may take: 4 when linear, 16 when quadratic (measured again
at twice the sizes when the longer text took under a second: a short text may fit a cache
the long one does not)."""
NOISE = 0.2
"""Below this many seconds on the longer text a parser is fast whatever its shape: on a
machine shared with other jobs, a run of a few milliseconds can take ten times as long
(the quadratic parsers this is meant to catch took 0.3-20 s there)."""


def repeated(piece: str, size: int) -> str:
    return piece * max(1, size // len(piece))


@pytest.mark.parametrize("target", TARGETS, ids=lambda target: target.name)
def test_time_is_linear_on_repeated_markup(target: Target) -> None:
    """Each piece of markup repeated: 4x the text costs well under 16x the time. A
    tree-sitter decoder's own error recovery is superlinear; its bound is the decoding
    budget's parse time (`budget.parse_seconds`), linear in the text."""
    slow = []
    with alarm(600, target.name):
        for piece in markup(target):
            long_text = repeated(piece, GRAMMAR_SIZE if target.grammar else 4 * SHORT)
            long_time = seconds_of(target.run, long_text)
            if long_time < NOISE:
                continue
            if target.grammar:
                # the bound is wall time: a loaded machine stretches the work around it
                if long_time > 2 * parse_seconds(len(long_text)) + 2.0:
                    slow.append((piece, long_time))
                continue
            times = _ratio(target.run, piece, SHORT)
            if RATIO * times[0] < times[1] < 1.0:
                times = _ratio(target.run, piece, 2 * SHORT)
            if times[1] > max(RATIO * times[0], NOISE):
                slow.append((piece, *times))
    assert not slow, f"{target.name}: superlinear on {slow}"


def _ratio(run: Callable[[str], Any], piece: str, size: int) -> tuple[float, float]:
    """(seconds on `size` characters of `piece`, seconds on 4x as many), each the best of
    three runs."""
    return (seconds_of(run, repeated(piece, size), repeats=3),
            seconds_of(run, repeated(piece, 4 * size), repeats=3))


# --- no exception escapes its stage ----------------------------------------------------------

UNICODE = st.text(st.characters(codec="utf-8"), min_size=1, max_size=8)
PIECE = st.one_of(st.sampled_from(VOCABULARY), UNICODE)
MEGABYTE = 1_000_000


@st.composite
def replies(draw: st.DrawFn) -> str:
    """A mixture of markup pieces and unicode, repeated up to about a megabyte, sometimes
    with a well-formed-looking call block around it."""
    unit = "".join(draw(st.lists(PIECE, min_size=1, max_size=6)))
    size = draw(st.sampled_from([len(unit), 1_000, 50_000, MAX_TEXT_CHARS, MEGABYTE,
                                 MAX_REPLY_CHARS + 1]))
    text = repeated(unit, size)
    prefix = draw(st.sampled_from(["", "<think>x</think>", "<|tool_call>call:f{a:1}<tool_call|>",
                                   "<|tool_call_start|>[f(a=1)]<|tool_call_end|>"]))
    return prefix + text


SECONDS = 10.0
"""Any one stage on any one reply up to a megabyte (linear parsers take well under 1 s)."""


def timed(what: str, call: Callable[[], Any]) -> Any:
    start = time.perf_counter()
    with alarm(int(SECONDS * 6), what):
        value = call()
    elapsed = time.perf_counter() - start
    assert elapsed <= SECONDS, f"{what}: {elapsed:.1f} s"
    return value


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(replies())
def test_every_stage_records_any_reply(text: str) -> None:
    """Generation (every prompt family, every tool-call format), scoring (every output
    decoder, AST and execution; Java, JavaScript): each reply read, or recorded as the case's
    failure, in bounded time."""
    for target in TARGETS:
        timed(target.name, lambda t=target: t.stage(text))


@pytest.mark.parametrize("target", TARGETS, ids=lambda target: target.name)
def test_every_stage_records_deep_nesting_after_its_markers(target: Target) -> None:
    """Each of the target's markers opening 100,000 brackets (past the interpreter's depth,
    under the decoding budget): JSON and Python parsers recurse."""
    for piece in markup(target):
        for bracket in "[{(":
            text = piece + bracket * 100_000
            timed(f"{target.name} on {piece!r} + {bracket!r} * 100,000",
                  lambda t=target, x=text: t.stage(x))


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(replies())
def test_parsers_are_fast_on_any_reply(text: str) -> None:
    """The parsers themselves, past the budget too (a plugin or a caller that does not cut
    first still gets linear time); their exceptions are their handlers' own."""
    for target in TARGETS:
        timed(f"{target.name} parser", lambda t=target: seconds_of(t.run, text))


GENERATION = [target for target in TARGETS
              if target.name.startswith(("prompt:", "tool-call-format:"))]
PARSE_AT_BUDGET = 3.0
"""Seconds a generation step may spend reading a reply of the size a parser reads at
generation (`MAX_REPLY_CHARS`): what the step adds to the request's deadline (`--timeout`)."""


@pytest.mark.parametrize("target", GENERATION, ids=lambda target: target.name)
def test_generation_reads_a_reply_of_the_largest_size_read_within_seconds(
    target: Target,
) -> None:
    """`--timeout` bounds the request; reading the reply after it is bounded by
    `MAX_REPLY_CHARS` (no longer text is read) and linear parsers: each markup piece repeated
    to that size."""
    slowest = max((seconds_of(target.stage, repeated(piece, MAX_REPLY_CHARS)), piece)
                  for piece in markup(target))
    assert slowest[0] < PARSE_AT_BUDGET, (target.name, slowest)
