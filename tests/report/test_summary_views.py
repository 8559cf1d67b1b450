"""Every view of a score says the same about each summary: complete, incomplete (and what is
missing) or nothing run (issue 32, Build 1). The rule is `score.completeness`; this renders
the terminal table, leaderboard.json and the HTML report's summary table from the same scores
and compares what each says, and checks them against the raw scores."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st
from rich.console import Console

from fcbench.core import categories as reg
from fcbench.report.csv_files import ModelEntry, unknown_model
from fcbench.report.html.collect import _incomplete_notes, _summaries
from fcbench.report.leaderboard import entry_json
from fcbench.report.table import SHOWN, SUMMARIES, V1_LABEL, print_scores
from fcbench.score.aggregate import CategoryScore, with_missing
from fcbench.score.completeness import SUMMARY_PARTS

NAMES = sorted({*reg.ALL_SCORING, *reg.V1})
SIZES = {name: 10 for name in NAMES}
LABELS = [label for label in (*SUMMARIES, V1_LABEL) if label in SUMMARY_PARTS]
MODEL = "m"
State = tuple[str, int, int, int]  # (complete|incomplete|nothing, groups run, groups, missing)


def terminal(per_model: dict[str, CategoryScore]) -> dict[str, State | str]:
    """What the terminal table says of each summary: its cell's mark, and its ‡ line."""
    complete = with_missing(per_model, reg.ALL_SCORING, SIZES)
    console = Console(record=True, width=400)
    print_scores(console, {MODEL: per_model}, {MODEL: complete}, v1=True)
    text = console.export_text()
    cells = {line.split("│")[1].strip(): line.split("│")[2].strip()
             for line in text.splitlines() if line.startswith("│")}
    said: dict[str, State | str] = {}
    for label in LABELS:
        cell = cells[SHOWN.get(label, label)]
        if cell == "—":
            said[label] = "nothing"
            continue
        if not cell.endswith("‡"):
            said[label] = "complete"
            continue
        note = re.search(rf"^‡ incomplete: {re.escape(SHOWN.get(label, label))}: (.*)$", text,
                         re.MULTILINE)
        assert note is not None, (label, text)
        said[label] = "incomplete: " + note.group(1)
    return said


def board(per_model: dict[str, CategoryScore]) -> dict[str, State | str]:
    """What leaderboard.json says of each summary (its `incomplete` list)."""
    complete = with_missing(per_model, reg.ALL_SCORING, SIZES)
    record = entry_json(ModelEntry(MODEL, unknown_model(MODEL), complete))
    listed = {item["summary"]: item for item in record["incomplete"]}
    said: dict[str, State | str] = {}
    for label in LABELS:
        item = listed.get(label)
        said[label] = ("complete" if item is None else "nothing" if item["nothing_run"]
                       else ("incomplete", item["groups_run"], item["groups"],
                             len(item["missing"])))
    return said


def report(per_model: dict[str, CategoryScore]) -> dict[str, State | str]:
    """What the HTML report's summary table says: its cell text, and the ‡ line under it."""
    rows = _summaries(per_model, SIZES, {})
    notes = _incomplete_notes([{"name": MODEL, "summaries": rows}])
    said: dict[str, State | str] = {}
    for label, value, text, _, gap in rows:
        if label not in LABELS:
            continue
        if text == "—":
            assert value is None and gap is None
            said[label] = "nothing"
        elif not text.endswith("‡"):
            assert gap is None
            said[label] = "complete"
        else:
            line = f"‡ incomplete: {SHOWN.get(label, label)}: {gap}"
            assert line in notes, (line, notes)
            said[label] = f"incomplete: {gap}"
    return said


def agree(label: str, text: State | str, record: State | str) -> bool:
    """The terminal's ‡ line states the same counts as the JSON record."""
    if isinstance(record, str) or not isinstance(text, str):
        return text == record
    _, run, groups, missing = record
    parts = sum(len(names) for _, names in SUMMARY_PARTS[label])
    if any(len(names) > 1 for _, names in SUMMARY_PARTS[label]):
        return text.startswith(f"incomplete: {run} of {groups} groups run")
    return text.startswith(f"incomplete: missing {missing} of {parts} categories")


scores = st.dictionaries(
    st.sampled_from(NAMES), st.tuples(st.booleans(), st.integers(0, 10)), min_size=1,
    max_size=len(NAMES))


@settings(max_examples=120, deadline=None)
@given(scores)
@example({"simple_python": (True, 1), "live_simple": (True, 1), "irrelevance": (True, 1),
          "multi_turn_base": (True, 1), "web_search_base": (True, 1), "memory_kv": (True, 1),
          "exec_simple": (True, 1)})  # every summary incomplete with something run: 9 lines
def test_terminal_and_leaderboard_json_say_the_same(picked: dict[str, tuple[bool, int]]) -> None:
    per_model = {n: CategoryScore(n, min(t, 5), t, 10) for n, (run, t) in picked.items() if run}
    if not per_model:
        per_model = {"multiple": CategoryScore("multiple", 1, 2, 10)}
    text, record, page = terminal(per_model), board(per_model), report(per_model)
    for label in LABELS:
        parts = [n for _, names in SUMMARY_PARTS[label] for n in names]
        judged = [n for n in parts if n in per_model and per_model[n].total > 0]
        expected = ("complete" if len(judged) == len(parts) else "nothing" if not judged
                    else "incomplete")
        assert (record[label] if isinstance(record[label], str) else "incomplete") == expected
        assert agree(label, text[label], record[label]), (label, text[label], record[label])
        if label in page:  # the report shows v1 Overall only when a 2024-only category ran
            assert agree(label, page[label], record[label]), (label, page[label], record[label])
            assert page[label] == text[label]  # the report's note is the terminal's
        if expected == "incomplete":
            assert isinstance(record[label], tuple) and record[label][3] == (
                len(parts) - len(judged))
