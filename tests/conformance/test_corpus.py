"""Conformance: fcbench's verdicts against the official evaluator's, case by case.

Scores every model in ../shared/corpus (v1: 14 models from 2024; v4: two open models) and
compares each case with `verdicts.jsonl`. Exact: the (model, category, id) triples fcbench
judged are exactly those `verdicts.jsonl` lists (none missing, none extra, none twice), and
every one gets the official `valid` and `error_type`. Prints a per-model, per-category table.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from fcbench.evaluation import Evaluation, evaluate
from shared_corpus import V1, V4_RUN, needs_corpus

ROOTS = {"v1": V1, "v4": V4_RUN}

pytestmark = needs_corpus

Key = tuple[str, str, str]  # model, category, test id
Outcome = tuple[bool, str | None]  # valid, error_type


def official_verdicts(model_dir: Path) -> dict[str, dict[str, Any]]:
    lines = (model_dir / "verdicts.jsonl").read_text(encoding="utf-8").splitlines()
    return {v["id"]: v for v in map(json.loads, lines)}


def expected_outcomes(root: Path, multi_turn: bool) -> dict[Key, Outcome]:
    """Every case the official evaluator judged under `root`: single-turn or multi-turn ones."""
    expected: dict[Key, Outcome] = {}
    for listing in sorted(root.glob("*/verdicts.jsonl")):
        for verdict in official_verdicts(listing.parent).values():
            category = verdict["category"]
            if category.startswith("multi_turn_") == multi_turn:
                key = (listing.parent.name, category, verdict["id"])
                expected[key] = (verdict["valid"], verdict["error_type"])
    return expected


def judged_outcomes(report: Evaluation) -> tuple[dict[Key, Outcome], list[Key]]:
    """Every case fcbench judged, and any it judged more than once."""
    judged: dict[Key, Outcome] = {}
    twice: list[Key] = []
    for model, evaluation in report.models.items():
        for category, scored in evaluation.categories.items():
            for case in scored.cases:
                key = (model, category, case.id)
                if key in judged:
                    twice.append(key)
                judged[key] = (case.verdict.valid, case.verdict.error_type)
    return judged, twice


def compare(expected: dict[Key, Outcome], judged: dict[Key, Outcome]) -> list[str]:
    """One line per disagreement: a case missing, extra, or judged differently."""
    lines = [f"not judged: {k}" for k in sorted(expected.keys() - judged.keys())]
    lines += [f"judged but not listed: {k}" for k in sorted(judged.keys() - expected.keys())]
    for key in sorted(expected.keys() & judged.keys()):
        if expected[key] != judged[key]:
            lines.append(f"{key}: ours {judged[key]}, official {expected[key]}")
    return lines


def print_table(name: str, expected: dict[Key, Outcome], judged: dict[Key, Outcome]) -> None:
    counts: dict[tuple[str, str], Counter[str]] = {}
    for key, theirs in expected.items():
        c = counts.setdefault(key[:2], Counter())
        ours = judged.get(key)
        c["cases"] += 1
        c["valid_agree"] += ours is not None and ours[0] == theirs[0]
        c["failed"] += not theirs[0]
        c["type_agree"] += not theirs[0] and ours == theirs
    print(f"\nconformance against the official verdicts, corpus {name}")
    print(f"{'model':40} {'category':24} {'cases':>6} {'valid agree':>12} {'type agree':>11}")
    total = (("all", ""), sum(counts.values(), Counter()))
    for (model, category), c in [*sorted(counts.items()), total]:
        type_share = c["type_agree"] / c["failed"] if c["failed"] else 1.0
        print(
            f"{model:40} {category:24} {c['cases']:6d} "
            f"{100 * c['valid_agree'] / max(c['cases'], 1):11.2f}% {100 * type_share:10.2f}%"
        )


def assert_exact(name: str, root: Path, report: Evaluation, multi_turn: bool) -> int:
    """The exact comparison; returns the number of cases compared."""
    expected = expected_outcomes(root, multi_turn)
    judged, twice = judged_outcomes(report)
    print_table(name, expected, judged)
    assert expected, f"{root} lists no official verdict"
    assert not twice, f"cases judged more than once: {twice[:10]}"
    diffs = compare(expected, judged)
    assert not diffs, f"{len(diffs)} difference(s):\n" + "\n".join(diffs[:50])
    return len(expected)


@pytest.mark.parametrize("name", sorted(ROOTS))
def test_verdicts_agree_with_official(name: str, fetched_home: Path) -> None:
    root = ROOTS[name]
    report = evaluate(root, category_names=["single_turn"])
    cases = assert_exact(name, root, report, multi_turn=False)
    assert cases == {"v1": 19460, "v4": 7282}[name]  # the corpus README's counts


def missing_environment_classes() -> list[str]:
    """The official backend classes fcbench cannot load yet (multi-turn needs all eight)."""
    from fcbench.envs.multi_turn import CLASSES, load_class

    missing = []
    for name in CLASSES:
        try:
            load_class(name)
        except (ImportError, AttributeError):
            missing.append(name)
    return missing


def test_multi_turn_verdicts_agree_with_official(fetched_home: Path) -> None:
    """Every multi-turn case of the v4 corpus gets the official `valid` and `error_type`."""
    missing = missing_environment_classes()
    if missing:
        pytest.skip(f"multi-turn environment classes not implemented yet: {', '.join(missing)}")
    root = ROOTS["v4"]
    report = evaluate(root, category_names=["multi_turn"])
    assert assert_exact("v4 (multi-turn)", root, report, multi_turn=True) == 1200
    assert {key[1] for key in judged_outcomes(report)[0]} == {
        "multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param"
    }


TRANSPLANT = Path(__file__).with_name("long_context_transplant.json")


def test_long_context_agrees_on_transplanted_answers(fetched_home: Path) -> None:
    """The corpus has no multi_turn_long_context outputs, so the other multi-turn answers
    are replayed as answers to the long-context case of the same number (same scenario
    family, long-context backends), against the official verdicts recorded in
    long_context_transplant.json (436 of the 1200 get past the turn-count pre-check)."""
    from fcbench.check.multi_turn import judge_multi_turn
    from fcbench.dataset.load import load_category
    from fcbench.decode.encoding import Encoding

    missing = missing_environment_classes()
    if missing:
        pytest.skip(f"multi-turn environment classes not implemented yet: {', '.join(missing)}")
    cases = {c.id: c for c in load_category("multi_turn_long_context")}
    official = json.loads(TRANSPLANT.read_text(encoding="utf-8"))["verdicts"]
    root = V4_RUN
    items = []
    for model_dir in sorted(p.parent for p in root.glob("*/model.json")):
        encoding = Encoding.from_file(model_dir / "model.json")
        for category in ("multi_turn_base", "multi_turn_miss_param", "multi_turn_miss_func"):
            path = model_dir / f"BFCL_v4_{category}_result.json"
            for line in path.read_text(encoding="utf-8").splitlines():
                entry = json.loads(line)
                number = entry["id"].rsplit("_", 1)[1]
                items.append((f"multi_turn_long_context_{number}", entry["result"], encoding))
    assert len(items) == len(official) == 1200
    diffs = []
    pairs = zip(items, official, strict=True)
    for k, ((target, raw, encoding), (valid, error_type)) in enumerate(pairs):
        verdict = judge_multi_turn(cases[target], raw, encoding, f"m{k}")
        if (verdict.valid, verdict.error_type) != (valid, error_type):
            diffs.append(f"{target} (item {k}): ours {verdict.error_type}, official {error_type}")
    assert not diffs, "\n".join(diffs[:20])
