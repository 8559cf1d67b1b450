"""Grouped warnings and the top error types."""

from __future__ import annotations

from collections import Counter

from rich.console import Console

from fcbench.report.console import group_problems, print_problems, print_top_errors

SKIPPED = "{m}: {c}: {n} case(s) skipped, not scored (they need a web service)"


def test_similar_warnings_become_one_line_with_counts_added_up() -> None:
    problems = [SKIPPED.format(m=m, c=c, n=n)
                for m, c, n in (("a", "rest", 5), ("b", "rest", 7), ("a", "exec_simple", 1))]
    problems.append("x.json: line 3: not JSON; skipped")
    groups = group_problems(problems)
    assert [g.count for g in groups] == [3, 1]
    console = Console(record=True, width=300)
    print_problems(problems, console)
    lines = console.export_text().splitlines()
    assert lines == [
        "warning: 13 case(s) skipped, not scored (they need a web service) "
        "[3 similar warnings, counts added up: a, b; exec_simple, rest]",
        "warning: x.json: line 3: not JSON; skipped",
    ]


def test_long_subject_lists_are_cut() -> None:
    problems = [SKIPPED.format(m=f"model{i}", c="rest", n=1) for i in range(9)]
    (group,) = group_problems(problems)
    assert "(9 in all)" in group.line() and "model8" not in group.line()


def test_top_error_types_per_category_over_models() -> None:
    errors = {
        "a": {"simple_python": Counter({"value_error:string": 3, "type_error:simple": 1})},
        "b": {"simple_python": Counter({"type_error:simple": 4, "x": 1, "y": 1}),
              "multiple": Counter()},
    }
    console = Console(record=True, width=200)
    print_top_errors(errors, console, top=2)
    text = console.export_text()
    assert "simple_python: type_error:simple 5, value_error:string 3" in text
    assert "multiple" not in text and " x " not in text
    errors["a"]["irrelevance"] = Counter({"irrelevance_error:decoder_success": 1})
    console = Console(record=True, width=200)
    print_top_errors(errors, console)
    lines = console.export_text().splitlines()
    assert [line.split(":")[0].strip() for line in lines[1:]] == ["simple_python", "irrelevance"]


def test_numbers_inside_names_are_printed_as_given() -> None:
    """`--corrections community-2026` on two models read 'community-4,052' (issue 32): only
    a number standing alone is a count to add up."""
    problems = [f"{m}: generated with --corrections none, judged with --corrections "
                "community-2026 (pass --corrections none to match)" for m in ("a", "b")]
    (group,) = group_problems(problems)
    assert "--corrections community-2026 (" in group.line()
    assert "[2 similar warnings: a, b]" in group.line()
    counted = [f"{m}: {n} cases of v2 skipped (exec-2026)." for m, n in (("a", 3), ("b", 4))]
    (group,) = group_problems(counted)
    assert group.line() == ("7 cases of v2 skipped (exec-2026). [2 similar warnings, counts "
                            "added up: a, b]")
