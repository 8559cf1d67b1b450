"""The multi-turn kind (spec §6.4): replay the model's calls and the ground truth's on fresh
environment instances, turn by turn, and compare states and results.

Replays allocate a lot and environments hold reference cycles, so the collector stays on, but
what is loaded is frozen (at the start and after each result file is read): otherwise every
full collection would rescan it, about a quarter of the run. Upstream some environments share
state across instances of a process; the official evaluator scores each model in a fresh
process, so that state is reset before each model's answers. Records have the multi-turn shape:
`error` is the checker's dict, the inference log is shown, function docs are not.
"""

from __future__ import annotations

import gc
from collections.abc import Hashable
from typing import Any

from fcbench import _json as fast_json
from fcbench._json import RawJSON
from fcbench.check.records import multi_turn_prompt_of
from fcbench.check.registry import (
    CheckerKind,
    CheckSession,
    JudgeSettings,
    Record,
    RecordBuilder,
)
from fcbench.core.categories import Category
from fcbench.core.model import TestCase, Verdict
from fcbench.dataset.slim import SlimCategory, load_slim
from fcbench.decode.encoding import Encoding


def multi_turn_record(
    model: str,
    category: Category,
    case: TestCase,
    raw: Any,
    verdict: Verdict,
    prompt: Any = None,
    inference_log: Any = "",
) -> dict[str, Any]:
    """A failed multi-turn case as the official score files show it: pre-check failures (not
    a list, force-terminated) show `model_result`, the others the raw and decoded steps."""
    from fcbench.check.multi_turn import PRE_CHECK_ERRORS

    record: dict[str, Any] = {
        "id": case.id,
        "model_name": model,
        "test_category": category.name,
        "valid": False,
        "error": verdict.extras.get("error", {"error_message": verdict.errors}),
        "prompt": prompt if prompt is not None else multi_turn_prompt_of(case),
    }
    if verdict.error_type in PRE_CHECK_ERRORS:
        record["model_result"] = raw
    else:
        record["model_result_raw"] = raw
        record["model_result_decoded"] = verdict.extras.get("decoded", [])
    record["possible_answer"] = case.possible_answer
    record["inference_log"] = inference_log
    return record


class MultiTurnSession(CheckSession):
    def __init__(self, settings: JudgeSettings) -> None:
        self.settings = settings
        gc.freeze()

    def begin_model(self, model: str) -> None:
        from fcbench.envs.multi_turn import reset_process_state

        reset_process_state()  # as if each model were scored in a fresh process, as upstream
        gc.freeze()

    def memo_key(
        self, case: TestCase, raw: Any, encoding: Encoding, model: str
    ) -> Hashable | None:
        """Keyed with the model name, which can show in the verdict's details; None (judged
        on its own) for a result no text stands for: odd types whose repr fails, nesting past
        the encoder's recursion."""
        try:
            text = fast_json.dumps(raw, ensure_ascii=False)  # integers of any length whole
        except (TypeError, ValueError):
            try:
                text = repr(raw)
            except (ValueError, RecursionError):
                return None
        except RecursionError:
            return None
        return (case.id, model + "\x00" + text, encoding)

    def judge(self, case: TestCase, raw: Any, encoding: Encoding, model: str) -> Verdict:
        from fcbench.check.multi_turn import judge_multi_turn
        from fcbench.check.turns import TURNS, turn_outcomes

        verdict = judge_multi_turn(
            case, raw, encoding, model, self.settings.details, self.settings.release
        )
        # fcbench's per-turn accuracy, after the official replay (which it leaves untouched);
        # an extra of the verdict, never written into the official score records
        turns = turn_outcomes(case, raw, encoding, model, self.settings.release)
        return Verdict(verdict.valid, verdict.error_type, verdict.errors,
                       {**verdict.extras, TURNS: turns})

    def records(self, model: str, category: Category, cases: SlimCategory) -> RecordBuilder:
        def record(
            case: TestCase, entry: dict[str, Any], verdict: Verdict, prompt: RawJSON | None
        ) -> Record:
            built = multi_turn_record(
                model, category, case, entry["result"], verdict, prompt,
                entry.get("inference_log", ""),
            )
            text = cases.answer_text(case)
            if text is not None:
                built["possible_answer"] = text
            return built

        return record

    def close(self) -> None:
        gc.unfreeze()


class MultiTurnKind(CheckerKind):
    cost_per_byte = 4.0

    def prepare(self) -> None:
        from fcbench.check.multi_turn import preload

        preload()  # once in the parent rather than once per worker

    def load(self, category: Category, settings: JudgeSettings) -> SlimCategory:
        # replayed answers never read the docs: building them is most of the loading time
        return load_slim(category, settings.release, settings.data_root, multi_turn_prompt_of,
                         slim_functions=False, functions=False)

    def session(self, category: Category, settings: JudgeSettings) -> CheckSession:
        return MultiTurnSession(settings)


MULTI_TURN = MultiTurnKind("multi_turn")
