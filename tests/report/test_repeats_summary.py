"""The repeats summary's pieces that the end-to-end test (tests/e2e/test_repeats_run.py)
does not reach: repeat folder names both ways, the report section, the terminal table."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from fcbench.layout import repeat_folder_name, repeat_of
from fcbench.report.repeats import (
    _category,
    html_section,
    repeat_groups,
    table_lines,
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


def document() -> dict[str, object]:
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
