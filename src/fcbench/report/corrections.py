"""The corrections profile in the leaderboard files: scores both ways.

Why: a reader must see what the community's fixes change. Score headers written under a
profile name it (`corrections`) and, for categories whose ground truth it edited, carry the
upstream side (`corrections_upstream`, see `evaluation.corrected`). From them this module
builds the upstream category scores and every summary group and Overall over them, beside
the corrected ones, for `leaderboard.json`. Nothing for score folders of the default.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fcbench.score.aggregate import CategoryScore
from fcbench.score.formulas import v1_overall, v4_summary

Header = Mapping[str, Any]


def corrections_of(headers: Mapping[str, Header]) -> dict[str, Any]:
    """`{"profile", "upstream": {category: the header's corrections_upstream}}` from one
    model's score headers; {} when none names a profile."""
    profiles = {str(h["corrections"]) for h in headers.values() if "corrections" in h}
    if not profiles:
        return {}
    upstream = {name: dict(h["corrections_upstream"]) for name, h in headers.items()
                if isinstance(h.get("corrections_upstream"), dict)}
    return {"profile": ", ".join(sorted(profiles)), "upstream": upstream}


def merge_corrections(first: Mapping[str, Any], second: Mapping[str, Any]) -> dict[str, Any]:
    """One model's corrections when its categories come from two score folders: both
    folders' profiles (named as `corrections_of` names several) and both upstream sides. A
    category is scored in one folder only (`leaderboard.merge_entries` refuses a second), so
    each upstream side stays with its category. {} when neither folder names a profile."""
    if not first or not second:
        return dict(first or second)
    profiles = {*str(first["profile"]).split(", "), *str(second["profile"]).split(", ")}
    return {"profile": ", ".join(sorted(profiles)),
            "upstream": {**first.get("upstream", {}), **second.get("upstream", {})}}


def upstream_scores(
    scores: Mapping[str, CategoryScore], corrections: Mapping[str, Any]
) -> dict[str, CategoryScore]:
    """The category scores as upstream counts them (only corrected categories differ)."""
    upstream: Mapping[str, Any] = corrections.get("upstream", {})
    return {name: dataclasses.replace(score, correct=int(upstream[name]["correct_count"]))
            if name in upstream else score for name, score in scores.items()}


def corrections_json(scores: Mapping[str, CategoryScore],
                     corrections: Mapping[str, Any]) -> dict[str, Any]:
    """leaderboard.json's `corrections` block: the profile, each corrected category both
    ways with its corrected cases (and their upstream numbers), and every V4 summary and
    the 2024 Overall as upstream scores them. {} for the default."""
    if not corrections:
        return {}
    before = upstream_scores(scores, corrections)
    categories = {
        name: {"accuracy": scores[name].accuracy, "upstream_accuracy": before[name].accuracy,
               "cases": side.get("cases", [])}
        for name, side in corrections["upstream"].items() if name in scores
    }
    summaries = {name: {"accuracy": s.accuracy, "total": s.total, "na": s.na}
                 for name, s in v4_summary(before).as_dict().items()}
    overall = v1_overall(before).overall
    return {"corrections": {
        "profile": corrections["profile"], "categories": categories,
        "upstream_summaries": summaries,
        "upstream_v1_overall": {"accuracy": overall.accuracy, "total": overall.total,
                                "na": overall.na},
    }}


def profile_of(score_dir: Path, model: str) -> str:
    """The corrections profile a model's score files name ("none" when none does)."""
    from fcbench.corrections import DEFAULT_PROFILE
    from fcbench.layout import model_dir_name
    from fcbench.results.score_files import read_score_headers

    headers = read_score_headers(score_dir).get(model_dir_name(model), {})
    return str(corrections_of(headers).get("profile", DEFAULT_PROFILE))


def compare_line(a: str, b: str) -> str | None:
    """compare's line naming each side's profile, when either is not the default; a warning
    when they differ (the delta then mixes the fixes with the models)."""
    from fcbench.corrections import DEFAULT_PROFILE

    if a == b == DEFAULT_PROFILE:
        return None
    line = f"corrections: A = {a}, B = {b}"
    return line if a == b else line + " (different profiles: the delta includes the fixes)"


def upstream_of_headers(headers: Mapping[str, Header]) -> dict[str, Any]:
    """`{"upstream": {category: corrections_upstream}}` of the score headers that carry an
    upstream side ({} when none does), the shape `upstream_scores` reads."""
    found = {name: dict(h["corrections_upstream"]) for name, h in headers.items()
             if isinstance(h.get("corrections_upstream"), Mapping)}
    return {"upstream": found} if found else {}


def summaries_both_ways(
    evaluated: Mapping[str, CategoryScore], complete: Mapping[str, CategoryScore],
    corrections: Mapping[str, Any],
) -> list[tuple[str, float | None, float | None]]:
    """(summary, corrected value, upstream value) for every summary the console shows
    (`report.table`: V4's and the 2024 Overall, N/A as None) that the profile changed."""
    from fcbench.report.table import SUMMARIES, V1_LABEL, displayed_summaries

    labels = [*SUMMARIES, V1_LABEL]
    now = displayed_summaries(evaluated, complete, labels)
    then = displayed_summaries(upstream_scores(evaluated, corrections),
                               upstream_scores(complete, corrections), labels)
    return [(label, now.get(label), then.get(label)) for label in labels
            if now.get(label) != then.get(label)]


def summaries_line(model: str, rows: list[tuple[str, float | None, float | None]]) -> str:
    """The console's line for `summaries_both_ways` (empty rows: no line to print)."""
    from fcbench.report.table import SHOWN
    from fcbench.score.formulas import format_percent

    shown = "; ".join(f"{SHOWN.get(label, label)} {format_percent(now)} corrected, "
                      f"{format_percent(then)} upstream" for label, now, then in rows)
    return f"  {model} summaries: {shown}"
