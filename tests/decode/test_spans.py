"""The linear span finders against the official regular expressions they replace (the
oracles below), on generated text made of the characters those patterns care about, and on
the inputs that made the patterns backtrack for seconds or minutes."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcbench.decode import spans
from fcbench.decode.families import lfm2

# The official patterns, kept here as oracles only.
JSON_LIST = re.compile(r"\[.*\]", re.DOTALL)
JSON_CALL_LIST = re.compile(r"\[\s*{.*?}\s*(?:,\s*{.*?}\s*)*\]", re.DOTALL)
TAGS = [
    ("<TOOLCALL>", "</TOOLCALL>"),
    ("<functions>", "</functions>"),
    ("<tool_call>\n", "\n</tool_call>"),
    ("<start_function_call>", "<end_function_call>"),
]

JS_GRID = re.compile(
    r"\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]"
    r"|\bnew\s+Array\(\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\)"
)
"""The JavaScript checker's two-dimensional array pattern (`check/ast/js_types.py`)."""

JSONISH = st.text(alphabet=st.sampled_from('[]{},: \n\t\u3000"ax1'), max_size=24)
"""Short text over the JSON pattern's alphabet (the oracle is exponential on long text)."""


def json_like_calls() -> st.SearchStrategy[str]:
    """Prose around a JSON call list, as models write it (sometimes cut or damaged)."""
    call = st.builds(
        lambda name, value: f'{{"function": "{name}", "parameters": {{"a": {value}}}}}',
        st.sampled_from(["f", "get_weather", "x.y"]),
        st.sampled_from(["1", '"}"', "[1, 2]", '{"b": ","}', '"]"']),
    )
    listing = st.builds(
        lambda items, sep: "[" + sep.join(items) + "]", st.lists(call, max_size=4),
        st.sampled_from([",", ", ", " ,\n"]),
    )
    around = st.sampled_from(["", "Sure: ", "```json\n", "[note] ", "\n```", " ok]", "{x}"])
    return st.builds(lambda a, body, b, cut: (a + body + b)[: cut or None],
                     around, listing, around, st.integers(0, 200))


def span_of(match: re.Match[str] | None) -> tuple[int, int] | None:
    return match.span() if match else None


@settings(max_examples=3000, deadline=None)
@given(JSONISH)
def test_json_call_list_matches_the_official_pattern_on_its_alphabet(text: str) -> None:
    assert spans.json_call_list(text) == span_of(JSON_CALL_LIST.search(text))
    assert spans.outer_brackets(text) == span_of(JSON_LIST.search(text))


@settings(max_examples=1000, deadline=None)
@given(json_like_calls())
def test_json_call_list_matches_the_official_pattern_on_answers(text: str) -> None:
    assert spans.json_call_list(text) == span_of(JSON_CALL_LIST.search(text))
    assert spans.outer_brackets(text) == span_of(JSON_LIST.search(text))


WHITESPACE = "".join(char for char in map(chr, range(0x3001)) if re.fullmatch(r"\s", char))
"""Every character the official patterns' `\\s` matches (U+3000 is the last), taken from the
regex engine itself: the ASCII six, U+001C-U+001F, U+0085, U+00A0 and the Unicode spaces."""


def test_json_call_list_skips_every_whitespace_the_pattern_does() -> None:
    """`\\s` is Unicode whitespace, not ASCII spaces, and it is skipped at four places: after
    `[`, after an item, after `,`, before `]`. The generated texts rarely put a rare space in
    the one place a finder could get wrong, so each character is tried at every place here."""
    assert "\u3000" in WHITESPACE and "\x1c" in WHITESPACE and "\x85" in WHITESPACE
    for space in WHITESPACE:
        text = f"[{space}{{}}{space},{space}{{}}{space}]"
        assert spans.json_call_list(text) == span_of(JSON_CALL_LIST.search(text)) == (
            0, len(text)), repr(space)
    for lookalike in ["\u200b", "\ufeff", "\x00"]:  # not `\\s`: no list starts at `[`
        text = f"[{lookalike}{{}}]"
        assert spans.json_call_list(text) == span_of(JSON_CALL_LIST.search(text)) is None


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("[{}] [{}]", (0, 4)),  # two lists: the first is the one decoded
        ("[{[{}]}]", (0, 6)),  # a list inside the first item: the outer `[` starts the match
        ("[x] [{}] [{}]", (4, 8)),  # the first `[` that starts a list, not the first `[`
    ],
)
def test_json_call_list_takes_the_first_bracket_that_starts_a_list(
    text: str, span: tuple[int, int]
) -> None:
    """`search` returns the leftmost match. Two `[` that both start a list are rare in the
    generated texts, so these pin it: a finder trying the last `[` first returns (5, 9),
    (2, 6) and (9, 13)."""
    assert spans.json_call_list(text) == span_of(JSON_CALL_LIST.search(text)) == span


GRIDDY = st.one_of(
    st.text(alphabet=st.sampled_from("[], \n\t1x"), max_size=22),
    st.builds(lambda prefix, body: prefix + body,
              st.sampled_from(["new Array(", "new  Array( ", "new\nArray(", "xnew Array("]),
              st.text(alphabet=st.sampled_from("[](), \n1"), max_size=18)),
)


@settings(max_examples=3000, deadline=None)
@given(GRIDDY)
def test_grid_end_matches_the_javascript_checkers_pattern(code: str) -> None:
    found = JS_GRID.match(code)
    assert spans.grid_end(code) == (found.end() if found else None)


TAGGY = st.lists(
    st.sampled_from([tag for pair in TAGS for tag in pair] + ["x", "\n", "<", ">", "tool_call"]),
    max_size=12,
).map("".join)


# 1,000 examples: `tagged_bodies` searching on from inside a body (nested openings taken) was
# found within 22-312 examples in five seeds.
@settings(max_examples=1000, deadline=None)
@given(TAGGY, st.sampled_from(TAGS))
def test_tags_match_the_official_patterns(text: str, tags: tuple[str, str]) -> None:
    oracle = re.compile(re.escape(tags[0]) + "(.*?)" + re.escape(tags[1]), re.DOTALL)
    assert spans.tagged(text, *tags) == (oracle.search(text).span(1) if oracle.search(text)
                                         else None)
    assert spans.tagged_bodies(text, *tags) == oracle.findall(text)


@pytest.mark.parametrize(
    ("text", "bodies"),
    [
        ("<tool_call>\n</tool_call>", []),  # the closing's `\n` is the opening's: no body
        ("<tool_call>\n</tool_call>\n</tool_call>", ["</tool_call>"]),
        ("<tool_call>\n\n</tool_call>", [""]),
    ],
)
def test_the_closing_tag_is_searched_after_the_opening_tag(text: str, bodies: list[str]) -> None:
    """The official `<tool_call>\\n(.*?)\\n</tool_call>` (Arch, Nanbeige, ...) shares its `\\n`
    between the two tags, so a closing tag that overlaps the opening one does not close it.
    Only this pair of `TAGS` can overlap, and the generated texts hardly ever build it; a
    finder searching for the closing tag from the opening tag's start finds (12, 11) and
    `[""]` in the first text."""
    opening, closing = "<tool_call>\n", "\n</tool_call>"
    oracle = re.compile(r"<tool_call>\n(.*?)\n</tool_call>", re.DOTALL)
    first = oracle.search(text)
    assert spans.tagged(text, opening, closing) == (first.span(1) if first else None)
    assert spans.tagged_bodies(text, opening, closing) == oracle.findall(text) == bodies


def test_the_backtracking_inputs_take_milliseconds() -> None:
    bombs = {
        "json call list": "[" + ",".join(["{}"] * 5000) + " x]",
        "open tags": "<functions>" * 20000,
        "open TOOLCALL tags": "<TOOLCALL>" * 20000,
        "open brackets": "[" * 200_000,
        "grid": "[" + "[]," * 5000 + "x]",
    }
    for name, text in bombs.items():
        started = time.perf_counter()
        spans.json_call_list(text)
        spans.outer_brackets(text)
        spans.tagged(text, "<functions>", "</functions>")
        spans.tagged_bodies(text, "<TOOLCALL>", "</TOOLCALL>")
        spans.grid_end(text)
        # linear scans take well under a second even on a loaded 2-core machine; the regexes
        # they replace took minutes on these inputs
        assert time.perf_counter() - started < 5.0, name


HERMES = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
"""The Hermes/Qwen tool-call pattern of the model layer (`decode/tool_call_formats.py`)."""

TAGGY = st.lists(
    st.sampled_from(["<tool_call>", "</tool_call>", " ", "\n", "\t", "\u3000", "x", "{}", "<"]),
    max_size=12,
).map("".join)


# 1,000 examples: trimming only spaces and newlines (not tabs, U+3000) was found within 4-125
# examples in five seeds, dropping the unclosed last block within 2.
@settings(max_examples=1000, deadline=None)
@given(TAGGY)
def test_trimmed_tagged_bodies_match_the_hermes_pattern(text: str) -> None:
    assert spans.trimmed_tagged_bodies(text, "<tool_call>", "</tool_call>") == HERMES.findall(
        text)


def test_trimmed_tagged_bodies_are_linear_on_long_spaces() -> None:
    """A body with 50,000 spaces inside: the pattern's lazy body tries `\\s*` at every one of
    them and rescans the run each time (127 s); the finder reads it once."""
    text = "<tool_call>x" + " " * 50_000 + "y"
    started = time.perf_counter()
    bodies = spans.trimmed_tagged_bodies(text, "<tool_call>", "</tool_call>")
    assert bodies == [text[len("<tool_call>"):]]
    assert time.perf_counter() - started < 5.0  # the pattern took 127 s


GEMMA_4_NATIVE_CALL = re.compile(r"<\|tool_call>\s*call:\s*(.*?)\s*<tool_call\|>", re.DOTALL)
"""Upstream PR #1357's pattern for Gemma 4's native calls (`models.families.gemma_4`)."""

GEMMA_4_PIECES = st.sampled_from(
    ["<|tool_call>", "<tool_call|>", "call:", "call", ":", " ", "\n", "\u3000", "\x85", "f{",
     "}", "x", "<|tool_call", "<", "|>"])


@settings(max_examples=3000, deadline=None)
@given(st.lists(GEMMA_4_PIECES, max_size=14).map("".join))
def test_prefixed_bodies_match_the_gemma_4_pattern(text: str) -> None:
    """Tags with and without `call:`, closed or not, spaces of every kind around the body."""
    assert spans.prefixed_bodies(text, "<|tool_call>", "call:", "<tool_call|>") == (
        GEMMA_4_NATIVE_CALL.findall(text))


def test_prefixed_bodies_are_linear_on_unclosed_tags() -> None:
    """The pattern rescans the rest of the text from every unclosed tag: 239 kB took 70 s."""
    text = "<|tool_call>call:f{" * 12_600
    start = time.perf_counter()
    assert spans.prefixed_bodies(text, "<|tool_call>", "call:", "<tool_call|>") == []
    assert time.perf_counter() - start < 0.5


LFM2_BLOCK = re.compile(r"<\|tool_call_start\|>\s*\[(.*?)\]\s*<\|tool_call_end\|>", re.DOTALL)
"""Upstream PR #1341's pattern for LFM2's call blocks (`decode.families.lfm2.blocks`)."""

LFM2_PIECES = st.sampled_from(
    ["<|tool_call_start|>", "<|tool_call_end|>", "[", "]", " ", "\n", "\u3000", "f()", "x",
     "<|tool_call_end", "|>", "<|tool_call_start|>[", "<|tool_call_start|> [",
     "]<|tool_call_end|>", "] \n<|tool_call_end|>", "]\u3000<|tool_call_end|>"])
"""The markers and brackets, and the pieces of a block whole (so that most texts hold one)."""


@settings(max_examples=3000, deadline=None)
@given(st.lists(LFM2_PIECES, max_size=14).map("".join))
def test_lfm2_blocks_match_the_pr_pattern(text: str) -> None:
    """Blocks closed, unclosed, nested brackets, a `]` before the `[`, spaces of every kind."""
    assert lfm2.blocks(text) == LFM2_BLOCK.findall(text)


def test_lfm2_blocks_are_linear_on_unclosed_blocks() -> None:
    """The pattern rescans the rest of the text from every unclosed block: 2 MB took 55 s."""
    text = "<|tool_call_start|>[" * 100_000
    start = time.perf_counter()
    assert lfm2.blocks(text) == []
    assert lfm2.blocks(text + "]<|tool_call_end|>") == [text[20:]]
    assert time.perf_counter() - start < 1.0
