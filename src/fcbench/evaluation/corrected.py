"""Scores both ways under a corrections profile: the cases whose ground truth the profile
edits are judged a second time as upstream does, so a score file says what the category
scores with and without the corrections.

Why a module of its own: the job runner stays kind-agnostic; this asks the same checker
kind for a fresh session (no memo shared with the corrected verdicts) with the profile
suspended, for the few corrected cases only: those whose ground truth a fix edits, and
those the `lenient-defaults` rule let pass (their verdict names the parameters it accepted;
the rule only widens what passes, so a case failing with it fails without it too).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fcbench import corrections
from fcbench.check import registry
from fcbench.check.ast.checker import LENIENT
from fcbench.check.registry import JudgeSettings
from fcbench.core.categories import Category
from fcbench.core.model import TestCase, Verdict
from fcbench.decode.encoding import Encoding

Judged = Sequence[tuple[TestCase, dict[str, Any], Verdict]]


def upstream_side(
    category: Category, settings: JudgeSettings, judged: Judged, encoding: Encoding,
    model: str,
) -> dict[str, Any] | None:
    """`{"correct_count", "total_count", "accuracy", "cases"}` as upstream would score the
    category, each corrected case listed with its fix, upstream numbers and both verdicts;
    None when the profile edits none of the judged cases."""
    corrected = [(case, entry, verdict) for case, entry, verdict in judged
                 if "skipped" not in verdict.extras and _fix(case, verdict) is not None]
    if not corrected:
        return None
    fixes = {case.id: _fix(case, verdict) for case, _, verdict in corrected}
    kind = registry.get(category.checker)
    with corrections.suspended():
        session = kind.session(category, settings)
        try:
            session.begin_model(model)
            upstream = {case.id: session.judge(case, entry["result"], encoding, model).valid
                        for case, entry, _ in corrected}
        finally:
            session.close()
    scored = [verdict for _, _, verdict in judged if "skipped" not in verdict.extras]
    correct = sum(v.valid for v in scored) + sum(
        upstream[case.id] - verdict.valid for case, _, verdict in corrected)
    cases = [{"id": case.id, "fix": fix.id, "upstream": list(fix.upstream),
              "valid": verdict.valid, "upstream_valid": upstream[case.id],
              **({"parameters": list(verdict.extras[LENIENT])} if LENIENT in verdict.extras
                 else {})}
             for case, _, verdict in corrected
             if (fix := fixes[case.id]) is not None]
    return {"correct_count": correct, "total_count": len(scored),
            "accuracy": correct / len(scored) if scored else 0.0, "cases": cases}


def _fix(case: TestCase, verdict: Verdict) -> corrections.Fix | None:
    """The fix that may have decided this verdict: the ground-truth edit of the case, else
    `lenient-defaults` when the verdict passed through it (`parameters` lists which)."""
    found = corrections.fix_of_case(case.id)
    if found is None and verdict.extras.get(LENIENT):
        return corrections.LENIENT_DEFAULTS
    return found
