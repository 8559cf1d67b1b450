"""Executable and REST verdicts against the 2024 official evaluator (`verdicts_2024_exec.jsonl`).

That file (per v1 model) holds the verdicts of the official evaluator as it ran in August
2024: live web services and that year's per-model handlers, for all 240 exec cases and all
70 `rest` cases. fcbench runs offline here (`--exec-backend offline`): a case whose request
or ground truth needs a web service is skipped, never passed or failed. Each of the 4,340
cases must fall into exactly one of these classes (the test fails on any other pairing):

* `same`: fcbench's `valid` and `error_type` equal 2024's. This includes `rest` cases whose
  call string fcbench refuses before any request (`executable_checker_rest:execution_error`,
  e.g. an invalid URL): 2024's `exec` of the same string raised too.
* `skipped`: fcbench skipped the case and 2024 got past decoding; for exec cases only where
  the ground truth needs a web service (`offline: false` in `verdicts_exec.jsonl`), for
  `rest` always (every request needs the network).
* `own_format` (prompt-mode Hermes-2-Pro and xLAM): fcbench fails to decode
  (`executable_decoder:decoder_failed`) text written in the model's own tool-call format,
  `<tool_call>` blocks or a `{"tool_calls": ...}` object, which its 2024 handler read and
  today's official handler for these outputs (prompt mode, Python calls) does not; or 2024
  found none of its blocks (`wrong_output_format`) in text that is not Python either.
* `bare_fence`: the text is wrapped in a bare Markdown fence (```` ``` ```` without a language
  tag), which today's decoder strips: fcbench decodes it, 2024 failed
  (`executable_decoder:decoder_failed`).
* `empty_dict`: fcbench fails to decode because today's official decoder renders an empty
  dict argument (`headers={}`) as a call and fails on it (spec §4.4 [quirk]); 2024 decoded.

Measured on the corpus (14 models; figures asserted exactly):

| class | exec (3,360 cases) | rest (980 cases) |
|---|---:|---:|
| same | 1,753 | 230 |
| skipped | 1,063 | 606 |
| own_format | 473 | 126 |
| bare_fence | 71 (34 of them then skipped) | 15 (all then skipped) |
| empty_dict | 0 | 3 |

FC-mode models (7) are `same` or `skipped` on every case (their outputs are structured, so
decoding rules did not change): the 938 offline exec cases and the 49 web-service exec cases
fcbench decides agree exactly, as do their 85 rest decoding and pre-request failures; the
other 693 exec and 405 rest cases are skipped. Offline, `rest` can only end as skipped (621)
or as a failure before any request: 330 decoding or format failures and 29 refused call
strings; the score files account for every skipped case.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from fcbench.decode.encoding import Encoding
from fcbench.evaluation import Evaluation, evaluate
from shared_corpus import V1, needs_corpus

pytestmark = needs_corpus

Key = tuple[str, str]  # model, test id
OWN_FORMATS = {
    "NousResearch_Hermes-2-Pro-Llama-3-8B": "<tool_call>",
    "Salesforce_xLAM-7b-fc-r": '{"tool_calls"',
}
BARE_FENCE = re.compile(r"\A\s*```(?![A-Za-z]).*```\s*\Z", re.DOTALL)
DECODE = "executable_decoder:"
REFUSED = "executable_checker_rest:execution_error"
EXPECTED_CLASSES = {
    "exec": {"same": 1753, "skipped": 1063, "own_format": 473, "bare_fence": 71},
    "rest": {"same": 230, "skipped": 606, "own_format": 126, "bare_fence": 15, "empty_dict": 3},
}


def read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def answers(model_dir: Path) -> dict[str, Any]:
    return {
        entry["id"]: entry["result"]
        for category in ("exec_simple", "exec_multiple", "exec_parallel",
                         "exec_parallel_multiple", "rest")
        for entry in read_lines(model_dir / f"BFCL_v4_{category}_result.json")
    }


@pytest.fixture(scope="module")
def scored(fetched_home: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Evaluation, Path]:
    score_dir = tmp_path_factory.mktemp("exec-scores")
    report = evaluate(V1, category_names=["executable"], exec_backend="offline",
                      score_dir=score_dir)
    return report, score_dir


def classify(ours: Any, theirs: dict[str, Any], text: Any, model: str, web: bool) -> str | None:
    """The class of one case (see the module docstring), or None for an unexplained one."""
    skipped = "skipped" in ours.extras
    theirs_decoded = not str(theirs["error_type"]).startswith(DECODE)
    message = " ".join(map(str, ours.errors))
    if not skipped and (ours.valid, ours.error_type) == (theirs["valid"], theirs["error_type"]):
        return "same"
    if skipped and theirs_decoded and web:
        return "skipped"
    fenced = isinstance(text, str) and BARE_FENCE.match(text) is not None
    if fenced and theirs["error_type"] == DECODE + "decoder_failed":
        return "bare_fence" if not str(ours.error_type).startswith(DECODE) else None
    if ours.error_type == DECODE + "decoder_failed" and model in OWN_FORMATS:
        own = isinstance(text, str) and OWN_FORMATS[model] in text
        if own or str(theirs["error_type"]).endswith("wrong_output_format"):
            return "own_format"
    if theirs_decoded and "an empty dict is rendered as a call" in message:
        return "empty_dict"
    return None


def classified(report: Evaluation) -> tuple[dict[str, Counter[str]], dict[str, Counter[str]]]:
    """Class counts per kind (exec, rest) and per model; raises on an unexplained case."""
    per_kind: dict[str, Counter[str]] = {"exec": Counter(), "rest": Counter()}
    per_model: dict[str, Counter[str]] = {}
    unexplained: list[str] = []
    for model_dir in sorted(p.parent for p in V1.glob("*/verdicts_2024_exec.jsonl")):
        model = model_dir.name
        ours = {c.id: c.verdict for s in report.models[model].categories.values() for c in s.cases}
        later = {v["id"]: v for v in read_lines(model_dir / "verdicts_exec.jsonl")}
        texts = answers(model_dir)
        for theirs in read_lines(model_dir / "verdicts_2024_exec.jsonl"):
            kind = "rest" if theirs["category"] == "rest" else "exec"
            web = kind == "rest" or not later.get(theirs["id"], {}).get("offline", False)
            verdict = ours.pop(theirs["id"], None)
            found = None if verdict is None else classify(
                verdict, theirs, texts[theirs["id"]], model, web
            )
            if found is None:
                unexplained.append(f"{model} {theirs['id']}: ours {verdict}, 2024 {theirs}")
                continue
            per_kind[kind][found] += 1
            per_model.setdefault(model, Counter())[found] += 1
        unexplained += [f"{model} {test_id}: not in the 2024 verdicts" for test_id in ours]
    assert not unexplained, f"{len(unexplained)} unexplained:\n" + "\n".join(unexplained[:30])
    return per_kind, per_model


def test_every_exec_and_rest_case_agrees_with_2024_or_has_a_known_cause(
    scored: tuple[Evaluation, Path],
) -> None:
    per_kind, per_model = classified(scored[0])
    print("\nagainst the 2024 evaluator (offline backend):")
    for model, counts in sorted(per_model.items()):
        print(f"  {model:40} {dict(sorted(counts.items()))}")
    print(f"  exec: {dict(per_kind['exec'])}\n  rest: {dict(per_kind['rest'])}")
    assert {kind: dict(c) for kind, c in per_kind.items()} == EXPECTED_CLASSES
    fc: Counter[str] = Counter()
    for model, counts in per_model.items():
        if Encoding.from_file(V1 / model / "model.json").is_fc:
            assert set(counts) <= {"same", "skipped"}, f"{model}: {counts}"
            fc.update(counts)
    assert fc == {"same": 938 + 49 + 85, "skipped": 693 + 405}


def test_offline_rest_ends_before_any_request(scored: tuple[Evaluation, Path]) -> None:
    """Offline, a rest case is skipped or fails before a request is sent: never valid, never
    a response-based failure (wrong key, status code, type)."""
    endings: Counter[str] = Counter()
    for evaluation in scored[0].models.values():
        for case in evaluation.categories["rest"].cases:
            verdict = case.verdict
            if "skipped" in verdict.extras:
                assert verdict.error_type == "fcbench:skipped"
                assert "web service" in verdict.extras["skipped"]
                endings["skipped"] += 1
            elif str(verdict.error_type).startswith(DECODE):
                endings["decode"] += 1
            else:
                assert verdict.error_type == REFUSED, (case.id, verdict)
                endings["refused"] += 1
    assert endings == {"skipped": 621, "decode": 330, "refused": 29}


def test_score_files_account_for_every_skipped_rest_case(
    scored: tuple[Evaluation, Path],
) -> None:
    """Header counts and ids of the skipped cases; one failure line per decided case."""
    report, score_dir = scored
    for model, evaluation in report.models.items():
        cases = evaluation.categories["rest"].cases
        skipped = sorted(c.id for c in cases if "skipped" in c.verdict.extras)
        decided = sorted(c.id for c in cases if "skipped" not in c.verdict.extras)
        [path] = (score_dir / model).rglob("BFCL_v4_rest_score.json")
        header, *failures = read_lines(path)
        if skipped:
            assert header["skipped_count"] == len(skipped)
            assert sorted(s["id"] for s in header["skipped"]) == skipped
        else:  # the official header shape
            assert set(header) == {"accuracy", "correct_count", "total_count"}
        assert (header["correct_count"], header["total_count"]) == (0, len(decided))
        assert sorted(f["id"] for f in failures) == decided, model
