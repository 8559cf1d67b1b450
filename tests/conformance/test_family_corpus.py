"""The 2024 corpus outputs of open models, decoded and scored under their family's decoders.

Three corpus models write the formats of official families: xLAM-7b-fc-r (`{"tool_calls":
[...]}` JSON, read by the xLAM, Hammer and BitAgent decoders), Llama-3-70B-Instruct (Python
calls, the Llama decoders) and Hermes-2-Pro (`<tool_call>` blocks, the Qwen-FC and Falcon
decoders). For every output of these models:

* every distinct family decoder's `decode_ast` and `decode_execute` equal the official
  handler's (the same value, or both fail);
* the verdict under the model's family decoders equals the official one: the official
  `_evaluate_single_ast_entry` / `_evaluate_single_relevance_entry` (compiled alone from the
  wheel, with the official AST checker) run with the family's handler, case by case.

The per-family accuracies are printed (`-s`) and listed in docs/conformance.md.
"""

from __future__ import annotations

import json
import sys
import types
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models" / "families"))
from family_handlers import (
    make_handler,
    official_decoder,
    official_handlers,
    ours_ast,
    theirs_ast,
)

from fcbench.core.categories import Language
from fcbench.decode.encoding import Encoding
from fcbench.decode.execute import decode_execute
from fcbench.models.families import output_encoding
from official_bfcl import official_function

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "v1"
MODELS: dict[str, list[str]] = {
    "Salesforce_xLAM-7b-fc-r": ["xlam-llama", "hammer", "bitagent"],
    "meta-llama_Meta-Llama-3-70B-Instruct": ["llama", "llama-3.1"],
    "NousResearch_Hermes-2-Pro-Llama-3-8B": ["qwen-fc", "falcon-fc"],
}
DECODERS = ["default", "phi", "qwen-fc", "falcon-fc", "phi-fc", "mistral-fc", "xlam-llama",
            "bitagent", "hammer", "think-agent", "llama-3.1", "glm", "granite-20b",
            "functiongemma", "minicpm-fc"]
"""One name per distinct decoder pair (`decode.families`)."""
CATEGORIES = ["simple_python", "simple_java", "simple_javascript", "multiple", "parallel",
              "parallel_multiple", "irrelevance"]

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not available")


def results(model: str, category: str) -> list[dict[str, Any]]:
    path = CORPUS / model / f"BFCL_v4_{category}_result.json"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def official(bfcl_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    folder = tmp_path_factory.mktemp("official")
    with official_handlers(bfcl_wheel, folder) as found:
        # the AST checker reads `underscore_to_dot` from the model registry, whose module
        # imports every vendor SDK: a stand-in answers False (these families keep dots)
        registry = types.ModuleType("bfcl_eval.constants.model_config")

        class Configs(dict[str, Any]):
            def __missing__(self, key: str) -> Any:
                return types.SimpleNamespace(underscore_to_dot=False)

        registry.MODEL_CONFIG_MAPPING = Configs()  # type: ignore[attr-defined]
        sys.modules["bfcl_eval.constants.model_config"] = registry
        from bfcl_eval import utils
        from bfcl_eval.constants.enums import Language as OfficialLanguage
        from bfcl_eval.constants.enums import ReturnFormat
        from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

        runner = folder / "bfcl_eval" / "eval_checker" / "eval_runner.py"
        names = {"ast_checker": ast_checker, **vars(utils)}
        found.ast_entry = official_function(runner, "_evaluate_single_ast_entry", names)
        found.relevance_entry = official_function(runner, "_evaluate_single_relevance_entry",
                                                  {**names, "ReturnFormat": ReturnFormat})
        found.languages = {Language.PYTHON: (OfficialLanguage.PYTHON, ReturnFormat.PYTHON),
                           Language.JAVA: (OfficialLanguage.JAVA, ReturnFormat.JAVA),
                           Language.JAVASCRIPT: (OfficialLanguage.JAVASCRIPT,
                                                 ReturnFormat.JAVASCRIPT)}
        found.prompts = {c: {e["id"]: e for e in utils.load_dataset_entry(
            c, include_prereq=False, include_language_specific_hint=False)} for c in CATEGORIES}
        found.answers = {c: {e["id"]: e for e in utils.load_ground_truth_entry(c)}
                         for c in CATEGORIES if c != "irrelevance"}
        yield found


def _language(category: str) -> Language:
    from fcbench.core import categories

    return categories.get(category).language


@pytest.mark.parametrize("model", list(MODELS))
def test_corpus_outputs_decode_as_the_official_handlers(official: Any, model: str) -> None:
    compared = 0
    for name in DECODERS:
        handler = official_decoder(official, name)
        encoding = Encoding("prompt", "dot", None, family=name)
        for category in CATEGORIES:
            language = _language(category)
            fmt = official.languages[language][1]
            for entry in results(model, category):
                raw = entry["result"]
                ours_calls = ours_ast(raw, encoding, language)
                theirs_calls = theirs_ast(handler, raw, fmt)
                if name in ("default", "phi") and ours_calls[0] == theirs_calls[0] != "calls":
                    pass  # the same error type; the default decoders' messages are fcbench's
                else:
                    assert ours_calls == theirs_calls, (model, name, entry["id"], "decode_ast")
                ours = _value(decode_execute, raw, encoding)
                theirs = _value(handler.decode_execute, raw, False)
                assert ours == theirs, (model, name, entry["id"], "decode_execute")
                compared += 1
    assert compared == len(DECODERS) * 1390  # every output of the seven categories


def _value(function: Any, *args: Any) -> tuple[str, str]:
    try:
        return "ok", repr(function(*args))
    except (Exception, RecursionError):
        return "error", ""


def official_verdict(official: Any, handler: Any, category: str, entry: dict[str, Any]) -> Any:
    prompt = json.loads(json.dumps(official.prompts[category][entry["id"]]))
    if category == "irrelevance":
        out = official.relevance_entry(handler, entry["id"], entry["result"], prompt, "m",
                                       category)
        return out["valid"], out.get("error_type")
    language, fmt = official.languages[_language(category)]
    answer = official.answers[category][entry["id"]]["ground_truth"]
    out = official.ast_entry(handler, entry["id"], entry["result"], answer, prompt, "m",
                             category, language, fmt, False)
    return out["valid"], out.get("error_type")


def test_family_verdicts_equal_the_official(fetched_home: Path, official: Any) -> None:
    from fcbench.evaluation import evaluate

    table = []
    for model, names in MODELS.items():
        for name in names:
            handler = (make_handler(official, name) if name != "falcon-fc"
                       else official_decoder(official, name))
            report = evaluate(CORPUS, models=[model], category_names=CATEGORIES,
                              encoding=output_encoding(name))
            counts: Counter[str] = Counter()
            for category, scored in report.models[model].categories.items():
                by_id = {e["id"]: e for e in results(model, category)}
                for case in scored.cases:
                    want = official_verdict(official, handler, category, by_id[case.id])
                    got = (case.verdict.valid, case.verdict.error_type)
                    assert got == want, (model, name, case.id)
                    counts["cases"] += 1
                    counts["valid"] += got[0]
                    counts[f"{category}:cases"] += 1
                    counts[f"{category}:valid"] += got[0]
            table.append((model, name, counts))
    print("\ncorpus v1 under family decoders (accuracy, cases; equal to the official verdicts)")
    for model, name, counts in table:
        cells = " ".join(f"{c}={counts[c + ':valid'] / counts[c + ':cases']:.3f}"
                         for c in CATEGORIES if counts[c + ":cases"])
        print(f"{model:40} {name:11} {counts['valid']:5}/{counts['cases']:5} {cells}")
    assert [c["cases"] for _, _, c in table] == [1390] * sum(map(len, MODELS.values()))
