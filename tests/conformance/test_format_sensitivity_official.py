"""Conformance: format-sensitivity scoring against the official evaluator, on generated answers.

There are no recorded format-sensitivity runs in ../shared/corpus, so the answers are
generated (`format_outputs.py`): for each of MODELS result files, every one of the 5,200 cases
gets an answer of one family (right, wrong, broken; 18 families), written in or out of the
case's configuration's format, so that every configuration meets every family. Two
models: every case is answered in two families (four were checked the same
way once; two still fail when the score header's std is the population one, or when
concise-XML parameter texts are not stripped: both tried).

The oracle is the official code from the shared wheel: the eval runner's
`format_sensitivity_runner` and `_evaluate_single_ast_entry` (taken from `eval_runner.py`,
which cannot be imported whole without every vendor SDK), its `ast_checker`, the OpenAI
handler's prompt-mode `decode_ast`, its `save_eval_results` (the score files) and its
leaderboard CSV writer, on the prompt and ground-truth entries its own loaders build. The
official model registry imports every vendor SDK, so it is replaced by a stub that knows the
oracle models (prompt models, no underscore-to-dot names).

Must hold: every case's verdict (valid, error_type) is the official one; each score file's
header (counts, per-configuration accuracies, max delta, variance, std) is byte-identical;
every failure record is byte-identical, except that a few Python-syntax decode failures are
worded by fcbench's parser (the error type and every other field still equal); and
`data_format_sensitivity.csv` is byte-identical.
"""

from __future__ import annotations

import functools
import json
import marshal
import random
import statistics
import sys
import types
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from format_outputs import FAMILIES, output

from fcbench import api
from fcbench.dataset.format_sensitivity import split_id
from fcbench.dataset.load import load_category
from official_bfcl import bare, official_function, official_package

MODELS = 2
SCORE_FILE = Path("format_sensitivity/BFCL_v4_format_sensitivity_score.json")
DECODER_FAILED = "ast_decoder:decoder_failed"


class _Registry(dict):  # type: ignore[type-arg]
    """Stands for the official MODEL_CONFIG_MAPPING: any name is a prompt model."""

    def __missing__(self, name: str) -> Any:
        return types.SimpleNamespace(
            display_name=name, url="", org="", license="", input_price=None,
            output_price=None, is_fc_model=False, underscore_to_dot=False,
        )


@pytest.fixture(scope="module")
def official(bfcl_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    added = []
    with official_package(bfcl_wheel, tmp_path_factory.mktemp("bfcl_official")) as package:
        registry = types.ModuleType("bfcl_eval.constants.model_config")
        registry.MODEL_CONFIG_MAPPING = _Registry()  # type: ignore[attr-defined]
        sys.modules[registry.__name__] = registry  # dropped with the package's modules
        if "pandas" not in sys.modules:  # the CSV writer's module imports it, never uses it
            sys.modules["pandas"] = types.ModuleType("pandas")
            added.append("pandas")
        try:
            from bfcl_eval import utils
            from bfcl_eval.constants.enums import Language, ReturnFormat
            from bfcl_eval.eval_checker import eval_runner_helper as helper
            from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
            from bfcl_eval.model_handler.api_inference.openai_completion import (
                OpenAICompletionsHandler,
            )
            from bfcl_eval.model_handler.utils import parse_prompt_variation_params
        except Exception as exc:  # pragma: no cover - depends on the environment
            pytest.fail(f"the official modules cannot be imported here: {exc!r}", pytrace=False)
        try:
            runner_file = package / "eval_checker/eval_runner.py"
            single = official_function(runner_file, "_evaluate_single_ast_entry", {
                "ast_checker": ast_checker,
                "is_function_calling_format_output": utils.is_function_calling_format_output,
            })
            runner = official_function(runner_file, "format_sensitivity_runner", {
                "defaultdict": defaultdict, "statistics": statistics, "Language": Language,
                "ReturnFormat": ReturnFormat, "_evaluate_single_ast_entry": single,
                "parse_prompt_variation_params": parse_prompt_variation_params,
                "save_eval_results": helper.save_eval_results,
            })
            # The CSV writer loads a category only to count the cases of one a model lacks;
            # loading each once (not once per model and category) keeps its output the same.
            counted = functools.lru_cache(maxsize=None)(
                lambda *a, **k: tuple(utils.load_dataset_entry(*a, **k)))
            helper.load_dataset_entry = lambda *a, **k: list(counted(*a, **k))
            yield types.SimpleNamespace(
                runner=runner,
                handler=bare(OpenAICompletionsHandler, is_fc_model=False),
                prompts=marshal.dumps(utils.load_dataset_entry(
                    "format_sensitivity", include_prereq=False,
                    include_language_specific_hint=False)),
                truths=marshal.dumps(utils.load_ground_truth_entry("format_sensitivity")),
                read_scores=helper.update_leaderboard_table_with_local_score_file,
                write_csvs=helper.generate_leaderboard_csv,
            )
        finally:
            for name in added:
                del sys.modules[name]


@pytest.fixture(scope="module")
def scored(fetched_home: Path, official: Any, tmp_path_factory: pytest.TempPathFactory
           ) -> dict[str, Any]:
    """Generated result files, scored by the official runner and by fcbench."""
    root = tmp_path_factory.mktemp("format_sensitivity_oracle")
    cases = load_category("format_sensitivity")
    rng = random.Random(20260323)
    families: dict[tuple[str, str], int] = {}
    for j in range(MODELS):
        model = f"oracle-model-{j}"
        entries = []
        for i, case in enumerate(cases):
            family = (7 * i + 5 * j) % FAMILIES
            families[(model, case.id)] = family
            entries.append({"id": case.id, "result": output(case, family, rng)})
        folder = root / "result" / model
        (folder / "format_sensitivity").mkdir(parents=True)
        (folder / "model.json").write_text(json.dumps({"mode": "prompt"}))
        (folder / "format_sensitivity/BFCL_v4_format_sensitivity_result.json").write_text(
            "".join(json.dumps(e) + "\n" for e in entries))
        official.runner(official.handler, entries, marshal.loads(official.prompts),
                        marshal.loads(official.truths), model, "format_sensitivity",
                        root / "official")
    report = api.evaluate(root / "result", score_dir=root / "ours", workers=1)
    return {"root": root, "report": report, "families": families, "cases": cases}


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _models() -> list[str]:
    return [f"oracle-model-{j}" for j in range(MODELS)]


def test_the_outputs_cover_every_family_in_every_configuration(scored: dict[str, Any]) -> None:
    seen = {(str(split_id(case_id)[0]), family)  # type: ignore[index]
            for (_, case_id), family in scored["families"].items()}
    assert len(seen) == 26 * FAMILIES
    assert len(scored["families"]) == MODELS * 5200


def test_every_verdict_equals_the_official(scored: dict[str, Any]) -> None:
    root = scored["root"]
    error_types: Counter[str] = Counter()
    for model in _models():
        failed = {}
        for line in _lines(root / "official" / model / SCORE_FILE)[1:]:
            record = json.loads(line)
            failed[record["id"]] = record["error_type"]
        verdicts = scored["report"].models[model].categories["format_sensitivity"].cases
        assert len(verdicts) == 5200
        for case in verdicts:
            want = failed.get(case.id)
            got = case.verdict.error_type if not case.verdict.valid else None
            assert got == want, (model, case.id, got, want)
        error_types.update(failed.values())
    assert len(error_types) >= 12, error_types  # the families reach most of the vocabulary
    assert sum(error_types.values()) < MODELS * 5200 * 0.9  # and many answers pass


def test_score_headers_are_byte_identical(scored: dict[str, Any]) -> None:
    root = scored["root"]
    for model in _models():
        official = _lines(root / "official" / model / SCORE_FILE)[0]
        ours = _lines(root / "ours" / model / SCORE_FILE)[0]
        assert ours == official, model
        header = json.loads(ours)
        assert len(header) == 3 + 3 + 26
        assert header["accuracy_max_delta"] > 0 and header["accuracy_std"] > 0


def test_failure_records_are_byte_identical(scored: dict[str, Any]) -> None:
    root = scored["root"]
    reworded = compared = 0
    for model in _models():
        official = _lines(root / "official" / model / SCORE_FILE)[1:]
        ours = _lines(root / "ours" / model / SCORE_FILE)[1:]
        assert len(ours) == len(official), model
        for mine, theirs in zip(ours, official, strict=True):
            compared += 1
            if mine == theirs:
                continue
            a, b = json.loads(mine), json.loads(theirs)
            assert a["error_type"] == b["error_type"] == DECODER_FAILED, (a["id"], mine, theirs)
            assert {**a, "error": None} == {**b, "error": None}, a["id"]
            prefix = "Invalid syntax. Failed to decode AST. "
            assert a["error"][0].startswith(prefix) and b["error"][0].startswith(prefix)
            reworded += 1
    assert reworded < compared * 0.02, (reworded, compared)


def test_the_csv_equals_the_official(scored: dict[str, Any], official: Any) -> None:
    """fcbench's CSV (from its score files) against the official writer's (from the
    official score files), both over the oracle models."""
    root = scored["root"]
    headers = [json.loads(_lines(root / "ours" / m / SCORE_FILE)[0]) for m in _models()]
    deltas = [h["accuracy_max_delta"] for h in headers]
    assert len(set(deltas)) == len(deltas), deltas  # no ties: the row order is defined
    table: dict[str, Any] = {}
    official.read_scores(table, root / "official")
    (root / "official_csv").mkdir()
    official.write_csvs(table, root / "official_csv")
    name = "data_format_sensitivity.csv"
    assert (root / "ours" / name).read_bytes() == (root / "official_csv" / name).read_bytes()
