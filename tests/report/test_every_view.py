"""Every view of one score folder says the same thing (issue 32, Build 1): the terminal's
`evaluate` table, `leaderboard`'s ranked table, leaderboard.json, the `fcbench export`
document, the HTML report's data (report/html/collect.py), its markdown summary and
`compare`. Each is rendered from the same score files (skipped cases and all-skipped
categories included) and read back as a reader would: for every model and summary whether it
is complete, incomplete (‡) or has nothing run (—), that no summary is marked partial (`*`)
for skipped cases, that a category none of whose cases was judged reads N/A and never 0.00,
whether the 2024 summaries are shown, and which Overall ranks the board (and in what order).
Each view is checked against `score.completeness` applied to the raw scores."""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from rich.console import Console

from fcbench.report import leaderboard as board
from fcbench.report.compare import as_json, compare
from fcbench.report.html import collect as collect_module
from fcbench.report.markdown import summary_markdown
from fcbench.report.table import SHOWN, print_scores
from fcbench.results.score_files import write_category_score
from fcbench.score import completeness as rule
from fcbench.score.aggregate import CategoryScore, with_missing
from fcbench.score.disputed import Disputed
from fcbench.score.runs import read_run

POOL = ("simple_python", "simple_java", "multiple", "parallel", "parallel_multiple",
        "irrelevance", "live_simple", "live_irrelevance", "multi_turn_base", "exec_simple",
        "rest")
"""A few categories of every kind: 2024 and V4 single-turn, V4-only, multi-turn, 2024-only."""
RELEASE = "2026.3.23"
State = str  # "complete" | "incomplete" | "nothing"


def state_of(cell: str) -> State:
    """What a summary cell says: `—` nothing run, `‡` incomplete, a bare number complete
    (the skipped-count suffix `†k skipped` of the report and markdown set aside)."""
    shown = cell.split(" †")[0].strip()
    assert "*" not in shown, f"a summary marked partial for skipped cases: {cell!r}"
    return "nothing" if shown == "—" else "incomplete" if shown.endswith("‡") else "complete"


# -- Building the score folder -----------------------------------------------------------------

Board = dict[str, dict[str, tuple[int, int, int]]]
"""model -> category -> (correct, judged, skipped); judged + skipped = the category's size."""


def write_folder(folder: Path, picked: Board) -> tuple[dict[str, list[str]], dict[str, int]]:
    """Score files for `picked`; (each category's case ids, each category's size)."""
    ids: dict[str, list[str]] = {}
    for model, categories in picked.items():
        for name, (correct, judged, skipped) in categories.items():
            ids[name] = [f"{name}_{i}" for i in range(judged + skipped)]
            failed = [{"id": ids[name][i]} for i in range(correct, judged)]
            gone = [{"id": ids[name][judged + i], "reason": "offline"} for i in range(skipped)]
            write_category_score(folder, model, CategoryScore(name, correct, judged,
                                                              judged + skipped),
                                 failed, {"skipped": gone} if gone else None)
    sizes = {name: 7 for name in (*rule.V1_ONLY, *rule.reg.ALL_SCORING)}
    sizes.update({name: len(found) for name, found in ids.items()})
    return ids, sizes


def raw_scores(picked: Board) -> dict[str, dict[str, CategoryScore]]:
    return {model: {n: CategoryScore(n, c, j, j + s) for n, (c, j, s) in cats.items()}
            for model, cats in picked.items()}


# -- The views ------------------------------------------------------------------------------------

Said = dict[tuple[str, str], State]
"""(model, summary key) -> what the view says of it."""
KEYS = {SHOWN.get(key, key): key for key in rule.SUMMARY_PARTS}
"""A summary's label as printed -> its key."""


def terminal(picked: Board, sizes: Mapping[str, int]) -> tuple[Said, dict[str, str]]:
    """`evaluate`'s table (a column per model) and its category cells."""
    per_model = raw_scores(picked)
    complete = {m: with_missing(s, rule.reg.ALL_SCORING, sizes) for m, s in per_model.items()}
    skipped_in = {m: {n: s for n, (_, _, s) in cats.items() if s} for m, cats in picked.items()}
    console = Console(record=True, width=2000)
    print_scores(console, per_model, complete,
                 {m: sum(v.values()) for m, v in skipped_in.items()}, skipped_in=skipped_in)
    rows = [[cell.strip() for cell in line.split("│")[1:-1]]
            for line in console.export_text().splitlines() if line.startswith("│")]
    models = list(per_model)
    said: Said = {}
    cells: dict[str, str] = {}
    for row in rows:
        for model, cell in zip(models, row[1:], strict=True):
            if row[0] in KEYS:
                said[model, KEYS[row[0]]] = state_of(cell)
            else:
                cells[f"{model}/{row[0]}"] = cell
    return said, cells


def ranked(folder: Path, sizes: Mapping[str, int]) -> tuple[Said, str, list[str]]:
    """`leaderboard`'s ranked table: each row's cells, the summary it ranks by, its order."""
    entries = board.merge_entries([folder], sizes)
    console = Console(record=True, width=2000)
    console.print(board.board_table(entries))
    text = console.export_text()
    found = re.search(r"ranked by (.+)$", text, re.MULTILINE)
    assert found is not None, text
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["#", "model"])
    labels = [SHOWN.get(k, k) for k in ("Overall", "Non-Live", "Live", "Irrelevance Detection",
                                        "Multi-Turn", "Agentic")]
    if "2024" in lines[header - 1]:
        labels.append("v1 Overall (2024)")
    said: Said = {}
    order = []
    for line in lines[header + 2:]:
        parts = line.split()
        if not parts or not parts[0].isdigit():
            break
        order.append(parts[1])
        for label, cell in zip(labels, parts[2:2 + len(labels)], strict=True):
            said[parts[1], KEYS[label]] = state_of(cell)
    return said, found.group(1).strip(), order


def records(models: list[dict[str, Any]], scores: Mapping[str, Mapping[str, CategoryScore]]
            ) -> Said:
    """leaderboard.json's or the export's `incomplete` lists, each summary complete unless
    listed."""
    said: Said = {}
    for record in models:
        listed = {item["summary"]: item for item in record["incomplete"]}
        for key in rule.SUMMARY_PARTS:
            item = listed.get(key)
            said[record["model"], key] = ("complete" if item is None else
                                          "nothing" if item["nothing_run"] else "incomplete")
        partial = set(record["partial_categories"])
        assert not partial, f"skipped cases made {partial} partial"
        assert set(scores[record["model"]]) <= set(record["categories"])
    return said


@contextmanager
def report_data(folder: Path, ids: Mapping[str, list[str]]) -> Iterator[None]:
    """collect.py reading this folder's made-up case ids (no data set texts needed)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("fcbench.score.runs.dataset_ids",
                      lambda release, data_dir: lambda name: ids.get(name, []))
        patch.setattr(collect_module, "_case_texts", lambda *args: [])
        yield


def report(folder: Path, ids: Mapping[str, list[str]], sizes: Mapping[str, int]
           ) -> tuple[Said, dict[str, str], str]:
    """The HTML report's data: its summary rows' texts, category texts, and the markdown."""
    with report_data(folder, ids):
        document = collect_module.collect([folder], [], RELEASE, None, sizes, Disputed([]))
    said: Said = {}
    cells: dict[str, str] = {}
    for model in document["models"]:
        for row in model["summaries"]:
            if row[0] in rule.SUMMARY_PARTS:
                said[model["name"], row[0]] = state_of(str(row[2]))
        for name, score in model["scores"].items():
            cells[f"{model['name']}/{name}"] = score["text"]
    cells["ranked_by"] = document["ranked_by"]
    return said, cells, summary_markdown(document)


def markdown(text: str, models: list[str]) -> Said:
    """The markdown summary table's cells (`\\*` is its partial mark)."""
    lines = text.splitlines()
    head = next(line for line in lines if line.startswith("| model |"))
    labels = [cell.strip() for cell in head.strip("|").split("|")[1:]]
    said: Said = {}
    for line in lines[lines.index(head) + 2:]:
        if not line.startswith("| "):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        assert cells[0] in models
        for label, cell in zip(labels, cells[1:], strict=True):
            said[cells[0], KEYS[label]] = state_of(cell.replace("\\*", "*"))
    return said


def compared(folder: Path, ids: Mapping[str, list[str]], sizes: Mapping[str, int],
             models: list[str]) -> Said:
    """`compare` of the first two models: each side's summary text."""
    runs = [read_run(folder, m, lambda name: ids.get(name, [])) for m in models[:2]]
    data = as_json(compare(runs[0], runs[1], sizes))
    said: Said = {}
    for summary in data["summaries"]:
        for model, text in zip(models[:2], summary["text"], strict=True):
            said[model, summary["summary"]] = state_of(text)
    return said


# -- The test -----------------------------------------------------------------------------------

split = st.tuples(st.integers(1, 4), st.integers(0, 3)).flatmap(
    lambda size_skipped: st.tuples(st.integers(0, size_skipped[0]),
                                   st.just(size_skipped[0]), st.just(size_skipped[1])))
"""(correct, judged, skipped) with at least one case; `judged` 0 comes from `zeroed`."""
boards = st.builds(
    lambda models, zeroed: {f"m{i}": {n: ((0, 0, c[1] + c[2]) if n in zeroed else c)
                                      for n, c in cats.items()}
                            for i, cats in enumerate(models)},
    st.lists(st.dictionaries(st.sampled_from(POOL), split, min_size=1, max_size=6),
             min_size=1, max_size=3),
    st.sets(st.sampled_from(POOL), max_size=2))


def consistent_sizes(picked: Board) -> Board:
    """One size per category whatever the model (judged + skipped of the first model that
    ran it), as a data set has."""
    size: dict[str, int] = {}
    for categories in picked.values():
        for name, (_, judged, skipped) in categories.items():
            size.setdefault(name, judged + skipped)
    fixed: Board = {}
    for model, categories in picked.items():
        fixed[model] = {}
        for name, (correct, judged, _) in categories.items():
            judged = min(judged, size[name])
            fixed[model][name] = (min(correct, judged), judged, size[name] - judged)
    return fixed


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boards)
@example({"m0": {"simple_python": (3, 4, 0), "multiple": (1, 2, 2)},  # 2024 only: v1 ranks
          "m1": {"simple_python": (2, 4, 0), "exec_simple": (1, 1, 3), "rest": (0, 0, 4)}})
@example({"m0": {"simple_python": (3, 4, 0), "live_simple": (1, 2, 0)},  # a V4 run
          "m1": {"multiple": (2, 2, 0), "irrelevance": (0, 1, 0)}})
@example({"m0": {"simple_python": (0, 1, 0)},  # compare's pair: 2024 only; the board: not
          "m1": {"simple_python": (0, 1, 0), "live_simple": (0, 1, 0)},
          "m2": {"simple_python": (0, 1, 0), "exec_simple": (0, 1, 0)}})
def test_every_view_says_the_same(picked: Board) -> None:
    picked = consistent_sizes(picked)
    scores = raw_scores(picked)
    models = sorted(picked)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "score"
        ids, sizes = write_folder(folder, picked)
        text, text_cells = terminal(picked, sizes)
        table, ranked_by, order = ranked(folder, sizes)
        entries = board.merge_entries([folder], sizes)
        written = json.loads(board.write_leaderboard_json(entries, Path(tmp) / "lb.json")
                             .read_text(encoding="utf-8"))
        from fcbench.export.results import build

        exported = build([folder], sizes, release=RELEASE)
        page, page_cells, page_markdown = report(folder, ids, sizes)
        views = {"terminal": text, "ranked table": table,
                 "leaderboard.json": records(written["models"], scores),
                 "export": records(exported["models"], scores),
                 "report": page, "markdown": markdown(page_markdown, models)}
        if len(models) > 1:
            views["compare"] = compared(folder, ids, sizes, models)

    # What the rule says of the raw scores, and which views show the 2024 summaries.
    expected = {(m, key): ("nothing" if c.nothing_run else "incomplete" if c.missing
                           else "complete")
                for m in models for key, c in rule.summaries_completeness(scores[m]).items()}
    v1 = rule.shows_v1(scores.values())
    for name, said in views.items():
        for key, state in said.items():
            assert state == expected[key], (name, key, state, expected[key])
    pair = rule.shows_v1(scores[m] for m in models[:2])  # compare: the two runs it compares
    for name in ("terminal", "ranked table", "report", "compare"):
        if name in views:
            shown = any(key == rule.V1_OVERALL for _, key in views[name])
            assert shown == (pair if name == "compare" else v1), (name, v1, pair)
    # Which Overall ranks, and the order: the ranked table, leaderboard.json, the export.
    by = rule.ranking_summary(scores.values())
    assert ranked_by == written["ranked_by"] == exported["ranked_by"] == SHOWN.get(by, by)
    assert page_cells["ranked_by"] == by  # the key; the page names it by summary_names
    assert order == [m["model"] for m in written["models"]] == [
        m["model"] for m in exported["models"]]
    assert [m["rank"] for m in written["models"]] == list(range(1, len(models) + 1))
    # A category none of whose cases was judged reads N/A, never 0.00; skipped is no `*`.
    for model, categories in picked.items():
        for name, (_, judged, skipped) in categories.items():
            cell, page_cell = text_cells[f"{model}/{name}"], page_cells[f"{model}/{name}"]
            assert "*" not in cell and "*" not in page_cell, (cell, page_cell)
            if judged == 0:
                assert cell.startswith("N/A") and page_cell == "N/A", (cell, page_cell)
            assert (f"†{skipped}" in cell) == bool(skipped), cell
