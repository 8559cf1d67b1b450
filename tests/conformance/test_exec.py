"""Conformance of the executable categories: fcbench's verdicts against `verdicts_exec.jsonl`.

`verdicts_exec.jsonl` (per v1 model) holds the verdicts of the last official evaluator that
scored exec_* (run with no network): complete for `offline: true` cases (their ground truth
calls only pure functions), and for the other cases only the failures decided before anything
runs (decoding, output format, call count). fcbench runs with the offline backend, so:

* offline cases must all be scored (never skipped) and agree case by case: >= 98% overall,
  100% for FC-mode models (the remaining prompt-mode differences come from that older
  evaluator's decoder, see docs/conformance.md);
* the other cases are either skipped (the ground truth needs a web service) or fail before
  execution, and the listed pre-execution verdicts must agree like the offline ones;
* `rest` has no offline verdicts: its cases are listed (skipped or pre-execution failures).

The per-model table, every difference and every skipped case with its reason are printed.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from fcbench.decode.encoding import Encoding
from fcbench.evaluation import Evaluation, evaluate
from shared_corpus import V1, needs_corpus

ROOT = V1

pytestmark = needs_corpus


def official(model_dir: Path) -> dict[str, dict[str, Any]]:
    lines = (model_dir / "verdicts_exec.jsonl").read_text(encoding="utf-8").splitlines()
    return {v["id"]: v for v in map(json.loads, lines)}


def is_fc(model_dir: Path) -> bool:
    return Encoding.from_file(model_dir / "model.json").is_fc


@pytest.fixture(scope="module")
def report(fetched_home: Path) -> Evaluation:
    return evaluate(ROOT, category_names=["executable"], exec_backend="offline")


def tally(report: Evaluation) -> tuple[dict[str, Counter[str]], list[str], list[str]]:
    """Per model: offline cases / agreements, listed pre-execution cases / agreements,
    skipped cases; plus the differences and the skipped cases, as printable lines."""
    counts: dict[str, Counter[str]] = {}
    diffs: list[str] = []
    skipped: list[str] = []
    for model, evaluation in report.models.items():
        theirs = official(ROOT / model)
        c = counts.setdefault(model, Counter())
        for category, scored in evaluation.categories.items():
            for case in scored.cases:
                ours = case.verdict
                if "skipped" in ours.extras:
                    c["skipped"] += 1
                    skipped.append(f"{model} {case.id}: {ours.extras['skipped']}")
                want = theirs.get(case.id)
                if category == "rest":
                    c["rest"] += 1
                    continue
                bucket = "offline" if want and want.get("offline") else "online"
                if want is None and "skipped" not in ours.extras:
                    c["online"] += 1  # decided by us, not listed by them: a disagreement
                    diffs.append(f"{model} {case.id}: ours {ours.error_type}, official unlisted")
                    continue
                if want is None:
                    continue
                c[bucket] += 1
                same = ours.valid == want["valid"] and ours.error_type == want["error_type"]
                c[f"{bucket}_agree"] += same
                if not same:
                    diffs.append(
                        f"{model} {case.id}: ours {ours.valid} {ours.error_type}, "
                        f"official {want['valid']} {want['error_type']}"
                    )
    return counts, diffs, skipped


def print_table(counts: dict[str, Counter[str]]) -> None:
    print("\nexecutable conformance against verdicts_exec.jsonl (offline backend)")
    print(f"{'model':40} {'offline':>8} {'agree':>8} {'pre-exec':>9} {'agree':>8} {'skipped':>8}")
    total: Counter[str] = Counter()
    for model, c in sorted(counts.items()):
        total.update(c)
        print(_row(model, c))
    print(_row("all", total))


def _row(name: str, c: Counter[str]) -> str:
    offline = 100 * c["offline_agree"] / max(c["offline"], 1)
    online = 100 * c["online_agree"] / max(c["online"], 1)
    return (
        f"{name:40} {c['offline']:8d} {offline:7.2f}% {c['online']:9d} {online:7.2f}% "
        f"{c['skipped']:8d}"
    )


def test_exec_verdicts_agree_with_the_last_official_exec_evaluator(report: Evaluation) -> None:
    counts, diffs, skipped = tally(report)
    print_table(counts)
    for line in diffs:
        print("  diff:", line)
    print(f"  {len(skipped)} skipped case(s) (offline backend):")
    for line in skipped:
        print("  skipped:", line)
    assert len(counts) == 14
    total = sum(counts.values(), Counter())
    assert total["offline"] == sum(
        1 for model in counts for v in official(ROOT / model).values() if v.get("offline")
    ), "every offline case must be scored, none skipped"
    agreed = total["offline_agree"] + total["online_agree"]
    assert agreed / (total["offline"] + total["online"]) >= 0.98
    assert total["offline_agree"] / total["offline"] >= 0.98
    for model, c in counts.items():
        if is_fc(ROOT / model):
            assert c["offline_agree"] == c["offline"], f"{model}: FC offline disagreement"
            assert c["online_agree"] == c["online"], f"{model}: FC pre-execution disagreement"


def test_skipped_cases_are_counted_apart(report: Evaluation) -> None:
    for evaluation in report.models.values():
        for scored in evaluation.categories.values():
            skipped = sum(1 for case in scored.cases if "skipped" in case.verdict.extras)
            assert scored.skipped == skipped
            assert scored.total == len(scored.cases) - skipped
            assert scored.correct <= scored.total
            assert all(
                c.verdict.error_type == "fcbench:skipped"
                for c in scored.cases
                if "skipped" in c.verdict.extras
            )


def test_all_differences_come_from_the_older_prompt_decoder(
    fetched_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the older evaluator's one extra decoding rule emulated (it parsed the text with
    the enclosing brackets and quotes stripped, so a multi-line list, a `[ ` start or `[]`
    failed), every listed case agrees: the checking itself matches exactly."""
    import ast

    import fcbench.check.exec as exec_checker
    from fcbench.decode.errors import DecodeError

    today = exec_checker.decode_execute

    def older(raw: Any, encoding: Encoding) -> list[str]:
        if not encoding.is_fc and isinstance(raw, str):
            text = raw.strip("`\n ")
            text = text if text.startswith("[") else "[" + text
            text = text if text.endswith("]") else text + "]"
            try:
                ast.parse(text.strip("[]'"), mode="eval")
            except SyntaxError as exc:
                raise DecodeError(f"Failed to decode for execution. {exc}") from None
        return today(raw, encoding)

    monkeypatch.setattr(exec_checker, "decode_execute", older)
    exec_only = ["exec_simple", "exec_multiple", "exec_parallel", "exec_parallel_multiple"]
    legacy = evaluate(ROOT, category_names=exec_only, workers=1)
    counts, diffs, _ = tally(legacy)
    total = sum(counts.values(), Counter())
    assert diffs == []
    assert total["offline_agree"] == total["offline"] == 1876
    assert total["online_agree"] == total["online"] == 398
