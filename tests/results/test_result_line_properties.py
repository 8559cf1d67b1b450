"""Property tests of result lines (issue 30, item 2): lines nobody here wrote, through every
stage that reads them (the reader, the decoders and checkers, the usage figures, the score
files, the CSVs and leaderboard, the HTML report, the three exports).

The strategies reach past the corpus: every JSON type in any field, integers past Python's
4,300-digit limit, floats at the edges (1e308, -0.0, 5e-324, NaN and the infinities Python's
JSON reads), lone surrogates (JSON escapes them; a file may also hold them as invalid UTF-8),
nesting thousands deep, and answers whose arguments are such numbers as Python text
(`10**4400`, a hex literal of thousands of digits, a decimal one past the limit).

The invariants: no exception escapes a stage (a bad line is a one-line problem or a recorded
failure of its case), every JSON document written is strict JSON, and the ordinary lines
beside the hostile ones get the verdicts they get alone.
"""

from __future__ import annotations

import base64
import gzip
import json
import math
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcbench import _json as fast_json
from fcbench.cli import main
from fcbench.report.csv_files import cost_latency, unknown_model
from fcbench.results.read import ResultFile, read_result_file
from fcbench.results.score_files import read_score_file, score_header, write_score_file
from fcbench.score.usage import Usage
from report_pages import documents, strict_json

# -- Strategies -------------------------------------------------------------------------------

ANY_CHARACTER = st.characters(exclude_categories=())
"""Every code point, lone surrogates included (Hypothesis leaves them out by default)."""

HUGE_INTS = st.integers(4_301, 6_000).flatmap(
    lambda digits: st.sampled_from([10**digits - 1, -(10**digits), 16 ** (digits * 5 // 6)])
)
"""Integers past Python's 4,300-digit limit (the smallest: 4,301 decimal digits)."""
EDGE_FLOATS = st.sampled_from([1e308, -1.7976931348623157e308, -0.0, 5e-324, 1e-320,
                               math.inf, -math.inf, math.nan])
LEAVES = (st.none() | st.booleans() | st.integers() | HUGE_INTS | st.floats() | EDGE_FLOATS
          | st.text(ANY_CHARACTER, max_size=12))
VALUES = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(ANY_CHARACTER, max_size=6), inner, max_size=4),
    max_leaves=16,
)
NUMBER_TEXT = st.one_of(
    st.integers(1, 6_000).map(lambda n: "9" * n),
    st.integers(0, 5_000).map(lambda k: f"10**{k}"),
    st.integers(1, 4_000).map(lambda n: "0x" + "f" * n),
    st.integers(1, 4_000).map(lambda n: "-0o" + "7" * n),
    st.sampled_from(["1e308", "1e999", "-0.0", "-1e-400", "5e-324", "float('nan')", "NaN",
                     "Infinity", "2**-1074", "10**4400 - 10**4400", "-(10**4400)"]),
)
PROMPT_ANSWERS = NUMBER_TEXT.map(lambda number: f"[calculate_triangle_area(base={number}, "
                                                "height=5)]")
FC_ANSWERS = NUMBER_TEXT.map(lambda number: [{"calculate_triangle_area":
                                              '{"base": ' + number + ', "height": 5}'}])
MULTI_TURN_ANSWERS = st.one_of(
    st.lists(st.lists(HUGE_INTS | PROMPT_ANSWERS | LEAVES, min_size=1, max_size=2),
             min_size=1, max_size=3),
    PROMPT_ANSWERS.map(lambda answer: [[answer]]),
    VALUES,
)
"""A multi-turn result: turns of steps, any of which may be a number or an odd value."""
USAGE = st.one_of(LEAVES, st.lists(st.lists(LEAVES, max_size=3), max_size=3))
ORDINARY_CASES = 5
"""The ordinary lines hold cases 0-4 of their category; hostile lines may name 5-9."""


def _hostile_ids(category: str) -> list[str]:
    return [f"{category}_{n}" for n in range(ORDINARY_CASES, 2 * ORDINARY_CASES)]


def _entries(answers: st.SearchStrategy[Any], ids: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """A result entry: mostly a case of the category (judged), else any id."""
    odd_ids = (HUGE_INTS | st.integers() | VALUES).filter(
        lambda value: not (type(value) is int and 0 <= value < ORDINARY_CASES))
    return st.fixed_dictionaries(
        {"id": st.one_of(st.sampled_from(ids), st.sampled_from(ids), odd_ids),
         "result": st.one_of(answers, answers, VALUES)},
        optional={"latency": USAGE, "input_token_count": USAGE, "output_token_count": USAGE,
                  "inference_log": VALUES, "extra": VALUES},
    )


def _text_of(value: Any, ascii_only: bool) -> str:
    return fast_json.dumps(value, ensure_ascii=ascii_only)


def _entry_lines(answers: st.SearchStrategy[Any], category: str = "simple_python"
                 ) -> st.SearchStrategy[str]:
    """A result entry's line (JSON escapes, or UTF-8 text with lone surrogates raw)."""
    return st.tuples(_entries(answers, _hostile_ids(category)), st.booleans()).map(
        lambda pair: _text_of(*pair))


OTHER_LINES = st.one_of(
    st.tuples(VALUES, st.booleans()).map(lambda pair: _text_of(*pair)),
    st.sampled_from(["NaN", "Infinity", "-1e999", "-0", '{"id": ', "\ufeff{}", "[1,]",
                     '{"id": "simple_python_5", "result": "[f()]", "latency": NaN}',
                     '{"id": "simple_python_6", "result": 1e999, "latency": -Infinity}']),
    st.integers(1_000, 30_000).map(lambda depth: "[" * depth + "]" * depth),
    st.integers(4_301, 7_000).map(
        lambda n: '{"id": "simple_python_7", "result": "[f()]", "latency": ' + "1" * n + "}"),
)
"""Lines that are not result entries: any JSON value, a raw token Python's JSON reads (NaN,
1e999), damage, nesting past any parser's recursion, a 4,301-7,000-digit latency."""


def _lines(answers: st.SearchStrategy[Any], category: str = "simple_python"
           ) -> st.SearchStrategy[list[str]]:
    """A few hostile lines: at least one entry of the category, maybe other lines."""
    return st.tuples(st.lists(_entry_lines(answers, category), min_size=1, max_size=3),
                     st.lists(OTHER_LINES, max_size=2)).map(lambda pair: pair[0] + pair[1])


def _write(path: Path, lines: list[str]) -> None:
    """As a file may hold them: a lone surrogate written raw is invalid UTF-8 (the reader
    replaces it); everything else as UTF-8."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes("".join(line + "\n" for line in lines).encode("utf-8", "surrogatepass"))


# -- Stages on their own: many examples -------------------------------------------------------


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(_lines(PROMPT_ANSWERS | FC_ANSWERS))
def test_the_reader_usage_and_score_files_take_any_line(lines: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "BFCL_v4_simple_python_result.json"
        _write(path, lines)
        found = read_result_file(ResultFile(path, "simple_python", "simple_python"))
        # every line is an entry or a one-line problem
        assert len(found.entries) + len(found.problems) == len(lines)
        assert all("\n" not in problem for problem in found.problems)

        usage = Usage()
        usage.extend(found.entries.values())
        figures = cost_latency(usage, unknown_model("m"))
        assert all(x is None or math.isfinite(x) for x in vars(figures).values()), figures

        records = [{"id": test_id, "model_result_raw": entry.get("result"), "entry": entry}
                   for test_id, entry in found.entries.items()]
        score = Path(folder) / "BFCL_v4_simple_python_score.json"
        write_score_file(score, score_header(0, len(records)), records)
        header, back = read_score_file(score)
        assert header["total_count"] == len(records) == len(back)
        # what was written reads back as the same JSON (NaN-safe: compared as text)
        assert [_text_of(r, True) for r in back] == [_text_of(r, True) for r in records]


@settings(max_examples=150, deadline=None)
@given(VALUES)
def test_the_reports_json_is_strict_whatever_it_holds(value: Any) -> None:
    from fcbench.report.html import page

    document = {"models": [{"usage": value}], "details": [value]}
    text = gzip.decompress(base64.b64decode(page.packed(document))).decode("utf-8", "replace")
    strict_json(text)


# -- The whole command: evaluate (report on), then every export ---------------------------


ORDINARY_PROMPT = [
    "[calculate_triangle_area(base=10, height=5)]",
    "[math.factorial(number=6)]",
    "[math.hypot(x=4, y=5)]",
    "[quadratic_roots(a=1, b=-3, c=2)]",
    "[solve_quadratic_equation(a=2, b=6",
]
"""simple_python_0-4 as a model might answer them: right, wrong value, right, wrong name,
torn."""
ORDINARY_FC = [
    [{"calculate_triangle_area": '{"base": 10, "height": 5}'}],
    [{"math_factorial": '{"number": 6}'}],
    [{"math_hypot": '{"x": 4, "y": 5}'}],
    "I would rather not call a function.",
    [{"solve_quadratic_equation": '{"a": 2, "b": 6'}],
]
ORDINARY_MULTI_TURN = [
    [["[ls()]"]],
    [["[cd(folder='document')]"], ["[ls(a=True)]"]],
    "not a list of turns",
    [[]],
    [["[mkdir(dir_name='temp')]", "[pwd()]"]],
]
"""multi_turn_base_0-4: plausible and implausible turns (each judged by the environments)."""
MODELS = {
    "prompt-model": ("prompt", "simple_python", ORDINARY_PROMPT),
    "fc-model": ("fc", "simple_python", ORDINARY_FC),
    "multi-turn-model": ("prompt", "multi_turn_base", ORDINARY_MULTI_TURN),
}
"""Folder -> (mode, category, ordinary answers)."""
HOSTILE_LINES = {
    "prompt-model": _lines(PROMPT_ANSWERS),
    "fc-model": _lines(FC_ANSWERS),
    "multi-turn-model": _lines(MULTI_TURN_ANSWERS, "multi_turn_base"),
}


def _file(category: str, kind: str) -> Path:
    group = "multi_turn" if category.startswith("multi_turn") else "non_live"
    return Path(group) / f"BFCL_v4_{category}_{kind}.json"


def _ordinary(model: str) -> list[str]:
    _, category, answers = MODELS[model]
    return [json.dumps({"id": f"{category}_{n}", "result": answer, "latency": 1.0 + n,
                        "input_token_count": 10, "output_token_count": 5})
            for n, answer in enumerate(answers)]


def _write_run(root: Path, lines: dict[str, list[str]]) -> None:
    for model, (mode, category, _) in MODELS.items():
        (root / model).mkdir(parents=True)
        (root / model / "model.json").write_text(json.dumps({"mode": mode}))
        _write(root / model / _file(category, "result"), lines[model])


def _verdicts(score_dir: Path, model: str) -> dict[str, str]:
    """id -> error type of the ordinary cases (absent: passed), from the score file."""
    category = MODELS[model][1]
    text = (score_dir / model / _file(category, "score")).read_text(encoding="utf-8")
    records = [fast_json.loads_numbers(line) for line in text.split("\n")[1:] if line]
    ordinary = {f"{category}_{n}" for n in range(ORDINARY_CASES)}
    return {r["id"]: str(r.get("error_type", r.get("error"))) for r in records
            if r.get("id") in ordinary}


def _cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _evaluate(root: Path) -> Path:
    scores = root.parent / (root.name + "-score")
    done = _cli("evaluate", "--result-dir", str(root), "--score-dir", str(scores),
                "--categories", "simple_python,multi_turn_base")
    assert done.exit_code == 0, done.output
    assert "Traceback" not in done.output
    return scores


@pytest.fixture(scope="module")
def baseline(fetched_home: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The ordinary lines' verdicts alone (computed, not written down)."""
    root = tmp_path_factory.mktemp("baseline") / "result"
    _write_run(root, {model: _ordinary(model) for model in MODELS})
    scores = _evaluate(root)
    verdicts = {model: _verdicts(scores, model) for model in MODELS}
    assert verdicts["prompt-model"] and verdicts["fc-model"]  # some fail, some pass
    assert len(verdicts["prompt-model"]) < 5 and len(verdicts["fc-model"]) < 5
    assert verdicts["multi-turn-model"]
    return verdicts


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(hostile=st.fixed_dictionaries(HOSTILE_LINES),
       where=st.randoms(use_true_random=False))
def test_evaluate_report_and_exports_on_any_lines(
    baseline: dict[str, Any], hostile: dict[str, list[str]], where: Any
) -> None:
    lines = {model: _ordinary(model) + hostile[model] for model in MODELS}
    for model_lines in lines.values():
        where.shuffle(model_lines)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "result"
        _write_run(root, lines)
        scores = _evaluate(root)
        for model in MODELS:
            assert _verdicts(scores, model) == baseline[model], model
        for name in ("data_overall.csv", "data_non_live.csv", "report.html"):
            assert (scores / name).is_file(), name
        strict_json((scores / "leaderboard.json").read_text(encoding="utf-8"))
        assert len(documents(scores / "report.html")) == 2
        again = Path(folder) / "again.html"  # the report read back from the score files
        reported = _cli("report", str(scores), "--result-dir", str(root), "-o", str(again))
        assert reported.exit_code == 0, reported.output
        main_document = documents(again)[0]
        assert "unreadable" not in json.dumps(main_document.get("problems")), main_document
        for format_name in ("fcbench", "every-eval-ever", "lm-eval"):
            out = Path(folder) / f"{format_name}.json"
            exported = _cli("export", str(scores), "--format", format_name, "--result-dir",
                            str(root), "--model", "prompt-model", "-o", str(out))
            assert exported.exit_code == 0, exported.output
            strict_json(out.read_text(encoding="utf-8"))
