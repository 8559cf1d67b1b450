"""The printed score tables: summaries, N/A, partial marks, the skipped column, and the
100-column promise on the real 14-model corpus."""

from __future__ import annotations

import re
from pathlib import Path

from rich.console import Console

from fcbench.core import categories
from fcbench.report.table import print_scores, ranked_table
from fcbench.results.score_files import read_score_headers
from fcbench.score.aggregate import CategoryScore, with_missing

SIZES = {name: 100 for name in (*categories.ALL_SCORING, *categories.V1)}


def render(skipped: dict[str, int] | None, width: int = 250) -> str:
    scores = {
        "m": {
            "simple_python": CategoryScore("simple_python", 30, 40, 400),
            "exec_simple": CategoryScore("exec_simple", 5, 10, 100),
        }
    }
    complete = {"m": with_missing(scores["m"], categories.ALL_SCORING, SIZES)}
    console = Console(record=True, width=width)
    print_scores(console, scores, complete, skipped)
    return console.export_text()


def test_table_shows_scores_partial_marks_and_skipped_counts() -> None:
    text = render({"m": 90})
    assert "75.00*" in text and "50.00*" in text  # 30/40 and 5/10, both partial
    assert "skipped" in text and " 90 " in text
    assert "v1 Overall" in text and "v1 Exec Summary" in text  # v1 categories were scored


def test_summaries_with_nothing_run_are_na_never_zero() -> None:
    lines = {line.split("│")[1].strip(): line for line in render(None).splitlines()
             if line.startswith("│")}
    for label in ("Live", "Multi-Turn", "Agentic", "Irrelevance Detection"):
        assert lines[label].split("│")[2].strip() == "—", label  # no number, not even 0.00
    # The headline counts missing categories as 0, marked incomplete (score.completeness).
    assert "N/A" not in lines["V4 Overall"] and "‡" in lines["V4 Overall"]


def test_no_skipped_column_without_skipped_cases() -> None:
    assert "skipped" not in render({"m": 0}).split("Summaries")[0].split("partial")[0]


def test_many_models_are_rows_and_few_are_columns() -> None:
    scores = {f"model{i}": {"multiple": CategoryScore("multiple", i, 10, 10),
                            "live_simple": CategoryScore("live_simple", i, 10, 10)}
              for i in range(9)}
    complete = {m: with_missing(s, categories.ALL_SCORING, SIZES) for m, s in scores.items()}
    console = Console(record=True, width=100)
    print_scores(console, scores, complete)
    rows = console.export_text().splitlines()
    # One table: a V4 category was run, no 2024-only one (the 2024 Overall would repeat a
    # V4 subset).
    assert sum(bool(re.match(r"model\d? ", line.strip())) for line in rows) == 9 + 1
    assert "2024" not in console.export_text()
    console = Console(record=True, width=100)
    print_scores(console, scores, complete, v1=True)  # asked for: V4, then the 2024 table
    rows = console.export_text().splitlines()
    assert sum(bool(re.match(r"model\d? ", line.strip())) for line in rows) == 2 * (9 + 1)
    few = {m: scores[m] for m in ("model1", "model2")}
    console = Console(record=True, width=100)
    print_scores(console, few, {m: complete[m] for m in few})
    text = console.export_text()
    assert any(line.lstrip("│ ").startswith("multiple") for line in text.splitlines())
    console = Console(record=True, width=100)  # 2024 categories only: ranked by v1 Overall,
    print_scores(console, {"a": {"multiple": scores["model1"]["multiple"]}},  # so shown
                 {"a": complete["model1"]})
    assert re.search(r"v1 Overall \(2024\) +│ +\d+\.\d\d‡ │", console.export_text())


NUMBER = re.compile(r"^((\d{1,3}\.\d\d|N/A)\*?‡?|—|\d+)$")


def test_corpus_table_at_100_columns_cuts_nothing(v1_scores: Path) -> None:
    headers = read_score_headers(v1_scores)
    per_model = {
        model: {c: CategoryScore.from_header(c, h, SIZES[c]) for c, h in cats.items()}
        for model, cats in headers.items()
    }
    complete = {m: with_missing(s, categories.ALL_SCORING, SIZES) for m, s in per_model.items()}
    console = Console(record=True, width=100)
    print_scores(console, per_model, complete, {m: 1 for m in per_model})
    text = console.export_text()
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 100
    assert "…" not in text
    for model in per_model:  # every name whole, on one line, in both tables (V4, 2024)
        rows = [line.split() for line in text.split("‡ incomplete")[0].splitlines()
                if line.split()[:1] == [model]]
        assert len(rows) == 2, model
        for cells in rows:
            assert all(NUMBER.match(cell) for cell in cells[1:]), cells
    assert "2024 leaderboard" in text and "Exec" in text


def ranked(table: object) -> list[list[str]]:
    console = Console(record=True, width=120)
    console.print(table)
    return [row.split() for row in console.export_text().splitlines()
            if row.split()[:1] and row.split()[0].isdigit()]


def test_a_2024_board_ranks_by_the_2024_formula_and_any_column_can_rank() -> None:
    """A: perfect on exec_simple, B: perfect on simple_python. V4 Overall counts
    exec_simple nowhere (B first); the 2024 Overall weighs both (A first: exec_simple holds
    more of the 2024 total here)."""
    sizes = {**SIZES, "exec_simple": 400}
    complete = {
        "A": with_missing({"exec_simple": CategoryScore("exec_simple", 400, 400, 400),
                           "simple_python": CategoryScore("simple_python", 0, 100, 100)},
                          categories.ALL_SCORING, sizes),
        "B": with_missing({"exec_simple": CategoryScore("exec_simple", 0, 400, 400),
                           "simple_python": CategoryScore("simple_python", 100, 100, 100)},
                          categories.ALL_SCORING, sizes),
    }
    console = Console(record=True, width=120)
    console.print(ranked_table(complete))
    text = console.export_text()
    assert "ranked by v1 Overall (2024)" in text
    assert "V4" in text and "2024" in text  # both Overall columns say their formula
    assert [row[1] for row in ranked(ranked_table(complete))] == ["A", "B"]
    assert [row[1] for row in ranked(ranked_table(complete, sort="Overall"))] == ["B", "A"]
    assert [row[1] for row in ranked(ranked_table(complete, sort="name"))] == ["A", "B"]
    skipped = ranked(ranked_table(complete, skipped={"A": 70, "B": 0}))
    assert [row[-1] for row in skipped] == ["70", "0"]


def test_ranked_table_orders_by_overall() -> None:
    complete = {
        name: with_missing({"multiple": CategoryScore("multiple", correct, 10, 10)},
                           categories.ALL_SCORING, SIZES)
        for name, correct in (("b", 3), ("a", 9), ("c", 3))
    }
    console = Console(record=True, width=100)
    console.print(ranked_table(complete))
    rows = [line.split() for line in console.export_text().splitlines()]
    ranked = [row[:2] for row in rows if row and row[0].isdigit()]
    assert ranked == [["1", "a"], ["2", "b"], ["3", "c"]]


def test_kept_unscored_categories_and_all_skipped_ones_show_so() -> None:
    scores = {"m": {"simple_python": CategoryScore("simple_python", 30, 40, 400),
                    "rest": CategoryScore("rest", 0, 0, 70)}}
    complete = {"m": with_missing(scores["m"], categories.ALL_SCORING, SIZES)}
    console = Console(record=True, width=250)
    print_scores(console, scores, complete, {"m": 70}, {"m": ["sql", "chatable"]})
    text = console.export_text()
    lines = {line.split("│")[1].strip(): line for line in text.splitlines()
             if line.startswith("│")}
    assert "N/A (not scored)" in lines["sql"] and "N/A (not scored)" in lines["chatable"]
    assert "N/A" in lines["rest"] and "0.00" not in lines["rest"]  # every case skipped
    assert "not scored: sql, chatable: results kept, not scored (the official tool never " in (
        text.replace("\n", " "))


def test_each_category_with_skipped_cases_is_marked_in_its_cell() -> None:
    scores = {"m": {"simple_python": CategoryScore("simple_python", 30, 40, 400),
                    "exec_simple": CategoryScore("exec_simple", 5, 10, 100),
                    "rest": CategoryScore("rest", 0, 0, 70)}}
    complete = {"m": with_missing(scores["m"], categories.ALL_SCORING, SIZES)}
    console = Console(record=True, width=250)
    print_scores(console, scores, complete, {"m": 72},
                 skipped_in={"m": {"exec_simple": 2, "rest": 70}})
    text = console.export_text()
    lines = {line.split("│")[1].strip(): line for line in text.splitlines()
             if line.startswith("│")}
    assert "50.00* †2" in lines["exec_simple"]
    assert "N/A †70" in lines["rest"] and "0.00" not in lines["rest"]
    assert "†" not in lines["simple_python"]
    assert "†k beside a category" in text.replace("\n", " ")


def test_summaries_made_of_partial_categories_are_marked() -> None:
    lines = {line.split("│")[1].strip(): line for line in render(None).splitlines()
             if line.startswith("│")}
    assert "*" in lines["V4 Overall"] and "*" in lines["v1 Overall (2024)"]
    assert "*" not in lines["Live"]  # N/A: nothing under it
    full = {"m": {"live_simple": CategoryScore("live_simple", 10, 100, 100)}}
    console = Console(record=True, width=250)
    print_scores(console, full, {"m": with_missing(full["m"], categories.ALL_SCORING, SIZES)})
    text = console.export_text()
    assert "*" not in text.split("Summaries")[0]


def test_the_footnote_states_the_rule_the_table_applies() -> None:
    """Issue 25 item 7: with simple_python run and the rest of Non-Live missing, Non-Live is
    N/A though something under it was run; Overall and Live count the missing as 0 or are N/A
    with nothing run, as the footnote says."""
    text = render(None)
    lines = {line.split("│")[1].strip(): line for line in text.splitlines()
             if line.startswith("│")}
    assert "N/A" in lines["Non-Live"]  # simple_python was run, the other Non-Live were not
    assert "N/A" not in lines["V4 Overall"] and "—" in lines["Live"]
    note = " ".join(text.split())
    assert "‡ incomplete: V4 Overall: 1 of 5 groups run; not run: Live, Irrelevance " \
           "Detection, Multi-Turn, Agentic; missing from the rest: simple_java," in note
    assert "‡ incomplete: Live" not in note  # nothing run: `—`, no line needed
    assert "Non-Live, Irrelevance Detection, Relevance Detection, Web Search, Memory and the v1 " \
           "AST and Exec summaries are N/A when any category under them has no results" in note
    assert "Overall, Live, Multi-Turn, Agentic and v1 Overall count such a category as 0" \
        in note
    assert "nothing under a summary was run" not in note
