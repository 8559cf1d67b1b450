"""Custom groups' summaries: the share of the group's cases passed, outside the V4 formulas."""

from __future__ import annotations

import json
from pathlib import Path

from fcbench.core.categories import ALL_SCORING
from fcbench.dataset.custom import use_data_dirs
from fcbench.score.aggregate import CategoryScore, with_missing
from fcbench.score.custom_groups import custom_groups, custom_summaries, is_custom_name
from fcbench.score.formulas import v4_summary


def dataset(tmp_path: Path) -> Path:
    folder = tmp_path / "grp"
    folder.mkdir()
    cats = [{"name": f"grp_{n}", "checker": "relevance", "file": f"{n}.jsonl", "group": g}
            for n, g in (("a", "alpha"), ("b", "alpha"), ("c", "beta"))]
    (folder / "fcbench.json").write_text(json.dumps({"name": "grp", "categories": cats}))
    for n, size in (("a", 2), ("b", 3), ("c", 1)):
        (folder / f"{n}.jsonl").write_text('{"question": "q", "tools": []}\n' * size)
    use_data_dirs(folder)
    return folder


def test_a_group_counts_its_cases_and_missing_categories_as_zero(tmp_path: Path) -> None:
    dataset(tmp_path)
    scores = {"grp_a": CategoryScore("grp_a", 2, 2, 2), "simple_python": CategoryScore(
        "simple_python", 1, 2, 400)}
    assert custom_groups(scores) == {"alpha": ["grp_a", "grp_b"]}
    assert custom_summaries(scores) == {"alpha (custom)": 2 / 5}  # grp_b not run: 0 over 3
    both = {**scores, "grp_c": CategoryScore("grp_c", 0, 1, 1)}
    assert custom_summaries(both) == {"alpha (custom)": 2 / 5, "beta (custom)": 0.0}
    assert custom_summaries({"grp_b": CategoryScore.missing("grp_b", 3)}) == {
        "alpha (custom)": None}
    # the official formulas never see them
    sizes = dict.fromkeys(ALL_SCORING, 10)
    official = v4_summary(with_missing({"simple_python": scores["simple_python"]},
                                       ALL_SCORING, sizes))
    assert v4_summary(with_missing(both, ALL_SCORING, sizes)) == official


def test_names_no_dataset_registers(tmp_path: Path) -> None:
    assert is_custom_name("zz_unheard_of") and not is_custom_name("simple_python")
    assert not is_custom_name("format_sensitivity")
    scores = {"zz_unheard_of": CategoryScore("zz_unheard_of", 1, 4, 4)}
    assert custom_summaries(scores) == {"unregistered (custom)": 0.25}
