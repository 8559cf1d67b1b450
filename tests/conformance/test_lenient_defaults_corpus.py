"""`--corrections lenient-defaults` over ../shared/corpus: the cases it changes, both scores.

Every single-turn case of both corpora is judged under the profile. Checked against the
official verdicts and the data files, read here without fcbench's checker: every case whose
verdict differs from the official one is listed in its category's upstream side as changed
(official fail, lenient pass), and each parameter the rule accepted is, in the model's own
answer, an optional parameter the ground truth may omit, given exactly the doc's default.
The whole corpus takes a few seconds (measured: about 3 s warm for 26,742 cases).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from fcbench import corrections
from fcbench.core.categories import Language
from fcbench.decode.encoding import decode_ast
from fcbench.evaluation import evaluate
from fcbench.evaluation.plan import model_encoding
from shared_corpus import V1, V4_RUN, needs_corpus

pytestmark = needs_corpus
LANGUAGES = {"simple_java": Language.JAVA, "simple_javascript": Language.JAVASCRIPT}


@pytest.fixture(autouse=True)
def lenient() -> Iterator[None]:
    corrections.use_profile("lenient-defaults")
    yield
    corrections.use_profile(None)


@cache
def rows(home: Path, kind: str, category: str) -> dict[str, Any]:
    """A category's question or answer rows of the fetched release, by id."""
    folder = next(home.rglob("BFCL_v4_simple_python.json")).parent
    path = folder / ("possible_answer" if kind == "answer" else "") / f"BFCL_v4_{category}.json"
    found = (json.loads(line) for line in path.read_text("utf-8").splitlines() if line)
    return {row["id"]: row for row in found}


def official(model_dir: Path) -> dict[str, bool]:
    lines = (model_dir / "verdicts.jsonl").read_text("utf-8").splitlines()
    return {v["id"]: v["valid"] for v in map(json.loads, lines)}


def model_calls(model_dir: Path, category: str, case_id: str) -> list[dict[str, Any]]:
    """The model's calls as `{name: args}`, from its result file, decoded as model.json says
    (decoding is not what the rule changes)."""
    path = model_dir / f"BFCL_v4_{category}_result.json"
    entry = next(e for e in map(json.loads, path.read_text("utf-8").splitlines())
                 if e["id"] == case_id)
    language = LANGUAGES.get(category, Language.PYTHON)
    calls = decode_ast(entry["result"], model_encoding(model_dir.name, model_dir, None),
                       language)
    return [{call.name: call.args} for call in calls]


def given_its_default(home: Path, category: str, case_id: str, calls: list[dict[str, Any]],
                      param: str) -> bool:
    """Some call of the model's gives `param` exactly the doc default (same JSON type), the
    parameter is optional and some expected call of that function may omit it."""
    docs = {d["name"]: d for d in rows(home, "question", category)[case_id]["function"]}
    expected = rows(home, "answer", category)[case_id]["ground_truth"]
    for call in calls:
        for name, args in call.items():
            doc = docs.get(name) or docs.get(name.replace("_", "."))
            doc = doc or next((d for n, d in docs.items() if n.replace(".", "_") == name), None)
            if doc is None or param not in args:
                continue
            details = doc["parameters"]["properties"].get(param, {})
            omittable = any("" in e.get(param, ()) for c in expected for e in c.values())
            value, default = args[param], details.get("default", object())
            if isinstance(default, int) and details.get("type") == "float":
                default = float(default)
            if isinstance(value, int) and details.get("type") == "float":
                value = float(value)
            if (omittable and param not in doc["parameters"].get("required", [])
                    and json.dumps(value) == json.dumps(default)):
                return True
    return False


def test_the_cases_lenient_defaults_changes_on_the_corpus(
        fetched_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    listed: list[tuple[str, str, str, list[str]]] = []
    both: list[str] = []
    for root in (V1, V4_RUN):
        report = evaluate(root, category_names=["single_turn"], workers=1)
        for model, scored in report.models.items():
            verdicts = official(root / model)
            for category, evaluation in scored.categories.items():
                side = evaluation.upstream
                changed = {c["id"]: c for c in (side or {}).get("cases", [])
                           if c["valid"] != c["upstream_valid"]}
                differs = {case.id for case in evaluation.cases
                           if case.verdict.valid != verdicts[case.id]}
                assert differs == set(changed), (model, category)  # nothing else moved
                for case_id, case in sorted(changed.items()):
                    assert case["fix"] == "lenient-defaults" and case["valid"]
                    assert not verdicts[case_id]  # the official verdict: a failure
                    calls = model_calls(root / model, category, case_id)
                    for param in case["parameters"]:
                        assert given_its_default(fetched_home, category, case_id, calls, param)
                    listed.append((model, category, case_id, case["parameters"]))
                if side is not None:  # both scores, the upstream one the official count
                    assert side["correct_count"] == sum(
                        verdicts[c.id] for c in evaluation.cases)
                    both.append(f"  {model} {category}: {100 * evaluation.accuracy:.2f}% "
                                f"lenient, {100 * side['accuracy']:.2f}% official")
    with capsys.disabled():
        print("\nlenient-defaults changes:", *(f"  {m} {c} {i} {p}" for m, c, i, p in listed),
              "both ways:", *both, sep="\n")
    # the corpus has such answers (e.g. parallel_multiple_69's monthly=False, default False)
    assert len(listed) >= 1
