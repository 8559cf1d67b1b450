"""The repeats summary's pieces that the end-to-end test (tests/e2e/test_repeats_run.py)
does not reach: repeat folder names both ways, the report section, the terminal table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fcbench.layout import repeat_folder_name, repeat_of
from fcbench.report.repeats import (
    _category,
    compared,
    comparison_lines,
    csv_text,
    html_section,
    read_repeats,
    repeat_groups,
    table_lines,
    well_formed,
    with_section,
)
from fcbench.score.repeats import category_repeats

folders = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="/\x00"),
                  min_size=1, max_size=30)


@settings(max_examples=200, deadline=None)
@given(folders, st.integers(1, 10**6))
def test_a_repeat_folder_name_reads_back(folder: str, index: int) -> None:
    assert repeat_of(repeat_folder_name(folder, index)) == (folder, index)


def test_names_that_are_not_repeats() -> None:
    for name in ["m-FC", "m.repeat-", "m.repeat-0", "m.repeat-01", ".repeat-2", "m.repeat-x"]:
        assert repeat_of(name) is None, name
    assert repeat_groups(["a.repeat-2", "a.repeat-1", "a", "b.repeat-1"]) == {
        "a": {1: "a.repeat-1", 2: "a.repeat-2"}, "b": {1: "b.repeat-1"}}


def document() -> dict[str, Any]:
    stats = category_repeats("multi_turn_base", [0.5, 1.0, 0.5],
                             {"<b>x</b>": [True, True, True], "y": [False, True, False]})
    return {"model": "m<script>", "repeats": [{"index": i} for i in (1, 2, 3)],
            "summaries": {}, "categories": {"multi_turn_base": _category(stats)}}


def test_report_section_lists_flaky_cases_apart_and_escapes() -> None:
    section = html_section({"m<script>": document()})
    assert section.startswith('<section id="repeats">')
    assert "m&lt;script&gt;" in section and "<script>" not in section
    assert "<li>multi_turn_base: y</li>" in section  # the flaky case, listed apart
    assert "1 / 0 / 1" in section  # consistent pass / fail / flaky
    assert "pass^3" in section and "<td>50.0</td>" in section  # pass^3: 1 of 2 cases
    assert html_section({}) == ""


def test_the_page_gets_the_section_only_with_repeats(tmp_path: Path) -> None:
    page = "<html><body><main></main></body></html>"
    assert with_section(page, [tmp_path]) == page
    (tmp_path / "m.repeats.json").write_text(
        '{"format": "fcbench-repeats", "model": "m", "repeats": [], "summaries": {}, '
        '"categories": {}}')
    shown = with_section(page, [tmp_path])
    assert shown.index('id="repeats"') < shown.index("</body>")


def test_table_shows_pass_k_for_multi_turn() -> None:
    lines = table_lines(document())
    assert lines[0].startswith("m<script>: 3 repeat(s)")
    row = next(line for line in lines if "multi_turn_base" in line and "pass^3" in line)
    assert "1/0/1" in row and "pass^3 50.0" in row and "pass@3 100.0" in row
    assert lines[-1].strip() == "multi_turn_base: y"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**30, 10**30)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=4),
    max_leaves=12)


def _valid() -> dict[str, Any]:
    found = document()
    found.update({"format": "fcbench-repeats", "schema_version": 1, "model": "m",
                  "summaries": {"All cases": {"values": [0.5, 1.0, 0.5], "mean": 2 / 3,
                                              "std": 0.29, "ci95": [0.0, 1.0],
                                              "incomplete": False}},
                  "multi_step": {"cases": 2, "pass_hat_k": {"1": 0.8, "2": 0.6, "3": 0.5},
                                 "pass_at_k": {"1": 0.8, "2": 1.0, "3": 1.0}}})
    return found


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.lists(st.integers(0, 7), min_size=1, max_size=5), json_values),
                min_size=1, max_size=4))
def test_a_damaged_summary_is_passed_over_never_a_traceback(
        tmp_path_factory: Any, damage: list[tuple[list[int], Any]]) -> None:
    """A repeats file edited by hand or cut short: every reader either skips it or shows
    it; none raises (the table, the report section, the CSV, a comparison)."""
    found: Any = _valid()
    for path, value in damage:  # replace a subtree picked by `path` with `value`
        node = found
        for step in path[:-1]:
            keys = list(node) if isinstance(node, dict) else list(range(len(node))) if \
                isinstance(node, list) else []
            if not keys or not isinstance(node[keys[step % len(keys)]], (dict, list)):
                break
            node = node[keys[step % len(keys)]]
        keys = list(node) if isinstance(node, dict) else list(range(len(node))) if \
            isinstance(node, list) else []
        if keys:
            node[keys[path[-1] % len(keys)]] = value
    folder = tmp_path_factory.mktemp("damaged")
    (folder / "m.repeats.json").write_text(json.dumps(found))
    for shown in read_repeats(folder).values():
        table_lines(shown)
        html_section({"m": shown})
        csv_text(shown)
        comparison_lines(compared(shown, shown))


def test_the_valid_document_is_read() -> None:
    assert well_formed(_valid())


def test_summaries_carry_the_labels_evaluate_prints() -> None:
    """`Overall` is the key; the table, the page section and compare say `V4 Overall`, as
    `evaluate` does (issue 32: the same labels everywhere)."""
    found = document()
    found["summaries"] = {"Overall": {"values": [0.1, 0.1], "mean": 0.1, "std": 0.0,
                                      "ci95": [0.1, 0.1], "incomplete": True}}
    row = next(line for line in table_lines(found) if "Overall" in line)
    assert row.split()[:2] == ["V4", "Overall‡"], row
    assert "<td>V4 Overall‡</td>" in html_section({"m": found})
