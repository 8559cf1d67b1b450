"""One case as the report shows it: what the model said, what it decoded to, why it failed.

Why a slim form: the page holds every case of every model, so each detail keeps what a
reader needs (long texts cut with a note), and multi-turn cases keep the turn-by-turn
conversation with the *differences* between state snapshots instead of every snapshot
(the snapshots are most of a multi-turn result file's size).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from fcbench import _json as fast_json

if TYPE_CHECKING:
    from fcbench.core.categories import Category

TEXT_LIMIT = 4000
"""Characters of one text shown in full; longer ones are cut with a note."""
TOOL_LIMIT = 600
"""Characters of one tool (execution) result in a multi-turn step."""
DIFF_DEPTH = 3
DIFF_LINES = 200
"""Lines of one attribute's model-vs-ground-truth diff shown; the rest cut with a note."""


def clip(text: str, limit: int = TEXT_LIMIT) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit:,} more characters]"


def shown(value: Any, limit: int = TEXT_LIMIT) -> str:
    """Any JSON value as text for the page (strings as they are)."""
    text = value if isinstance(value, str) else fast_json.dumps(value, ensure_ascii=False)
    return clip(text, limit)


def failure_detail(
    category: Category, entry: Mapping[str, Any] | None, failure: Mapping[str, Any]
) -> dict[str, Any]:
    """A failed case's detail, in the form its category's checker kind calls for."""
    from fcbench.core.categories import Checker

    if category.checker == Checker.MULTI_TURN:
        return multi_turn_detail(entry, failure)
    return single_turn_detail(entry, failure)


# -- Single-turn ------------------------------------------------------------------------------


def single_turn_detail(
    entry: Mapping[str, Any] | None, failure: Mapping[str, Any]
) -> dict[str, Any]:
    """Raw output, decoded calls and error of one failed answer, from the failure record
    (it holds the official decoded form and messages) and the result entry (the raw output
    as the model gave it). Passing answers get no detail: decoding them for display was
    half the build time of a large report and most of its bytes (issue 23 item 4)."""
    raw = _raw_of(entry, failure)
    decoded = failure.get("model_result_decoded", failure.get("decoded_result"))
    return {"raw": None if raw is None else shown(raw),
            "decoded": None if decoded is None else shown(decoded),
            "error": shown(failure.get("error"))}


def _raw_of(entry: Mapping[str, Any] | None, failure: Mapping[str, Any] | None) -> Any:
    if entry is not None:
        return entry.get("result")
    if failure is not None:
        return failure.get("model_result_raw", failure.get("model_result"))
    return None


# -- Multi-turn -------------------------------------------------------------------------------


def multi_turn_detail(
    entry: Mapping[str, Any] | None, failure: Mapping[str, Any]
) -> dict[str, Any]:
    """Turn by turn: the user's query, each step's output, decoded calls and tool results,
    and what changed in each environment during the turn."""
    log = (entry or {}).get("inference_log") or (failure or {}).get("inference_log")
    detail: dict[str, Any] = {"turns": turns_of(log) if isinstance(log, list) else []}
    if not detail["turns"]:
        raw = _raw_of(entry, failure)
        detail["raw"] = None if raw is None else shown(raw)
    error = failure.get("error")
    detail["error"] = shown(error)
    detail["failed_turn"] = failed_turn(error)
    detail["state_diff"] = state_diff(error)
    return detail


_TURN = re.compile(r"\bturn (\d+)\b")


def failed_turn(error: Any) -> int | None:
    """The turn the official multi-turn checker stopped at (0-based), from its error: the
    turn its message names, else the turns it had executed (`execution_result` holds one
    entry per turn up to the failing one); None when the case failed as a whole (force
    termination, an inference error)."""
    if not isinstance(error, Mapping):
        return None
    messages = error.get("error_message")
    for text in messages if isinstance(messages, list) else [messages]:
        found = _TURN.search(text) if isinstance(text, str) else None
        if found:
            return int(found.group(1))
    details = error.get("details")
    for holder in (error, details if isinstance(details, Mapping) else {}):
        executed = holder.get("execution_result")
        if isinstance(executed, list) and executed:
            return len(executed) - 1
    return None


def state_diff(error: Any) -> list[list[str]]:
    """[class, attribute, diff] per attribute the official checker found different between
    the model's environment and the ground truth's (`details.differences`): a unified diff
    of the two values as indented JSON, ground truth as `-`, model as `+`."""
    details = error.get("details") if isinstance(error, Mapping) else None
    differences = details.get("differences") if isinstance(details, Mapping) else None
    if not isinstance(differences, Mapping):
        return []
    message = str(error.get("error_message", "")) if isinstance(error, Mapping) else ""
    found = re.search(r"Model instance for (\S+) does not match", message)
    owner = found.group(1) if found else ""
    return [[owner, str(name), _value_diff(pair)] for name, pair in differences.items()
            if isinstance(pair, Mapping)]


def _value_diff(pair: Mapping[str, Any]) -> str:
    def lines(value: Any) -> list[str]:
        if isinstance(value, str):  # e.g. a file system's one-line repr: a part per line
            return value.replace(", ", ",\n").splitlines()
        return json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True,
                          default=str).splitlines()

    diff = list(difflib.unified_diff(lines(pair.get("ground_truth")), lines(pair.get("model")),
                                     "ground truth", "model", n=2, lineterm=""))
    if len(diff) > DIFF_LINES:
        diff = [*diff[:DIFF_LINES], f"… [{len(diff) - DIFF_LINES:,} more lines]"]
    return "\n".join(diff)


def turns_of(log: list[Any]) -> list[dict[str, Any]]:
    """The official inference log (state snapshot, turn, snapshot, turn, ...) as turns."""
    turns: list[dict[str, Any]] = []
    before: list[Any] | None = None
    pending: dict[str, Any] | None = None
    for item in log:
        if isinstance(item, list):  # a state snapshot: closes the turn before it
            if pending is not None and before is not None:
                pending["changes"] = state_changes(before, item)
            before = item
            pending = None
        elif isinstance(item, dict):
            pending = _turn(item)
            turns.append(pending)
    return turns


def _turn(turn: Mapping[str, Any]) -> dict[str, Any]:
    query = turn.get("begin_of_turn_query") or []
    texts = [m.get("content") for m in query if isinstance(m, dict)]
    steps = [
        _step(messages)
        for key, messages in turn.items()
        if key.startswith("step_") and isinstance(messages, list)
    ]
    return {"query": shown([t for t in texts if t is not None]) if texts else "",
            "steps": steps, "changes": []}


def _step(messages: list[Any]) -> dict[str, Any]:
    step: dict[str, Any] = {"out": None, "decoded": None, "tools": [], "notes": []}
    for message in messages:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "assistant":
            step["out"] = shown(message.get("content"))
        elif role == "handler_log":
            if "model_response_decoded" in message and step["decoded"] is None:
                step["decoded"] = shown(message["model_response_decoded"])
            step["notes"].append(shown(message.get("content"), TOOL_LIMIT))
        elif role == "tool":
            step["tools"].append(shown(message.get("content"), TOOL_LIMIT))
    return step


def state_changes(before: list[Any], after: list[Any]) -> list[list[str]]:
    """[class, path, before, after] for every attribute that changed between snapshots."""
    old = _snapshot(before)
    new = _snapshot(after)
    changes: list[list[str]] = []
    for name in sorted(set(old) | set(new)):
        _diff(name, "", old.get(name), new.get(name), changes, 0)
    return changes


def _snapshot(states: list[Any]) -> dict[str, Any]:
    return {
        str(s.get("class_name")): s.get("content")
        for s in states
        if isinstance(s, dict) and s.get("role") == "state_info"
    }


_ABSENT = object()


def _diff(name: str, path: str, a: Any, b: Any, into: list[list[str]], depth: int) -> None:
    if a == b:
        return
    if isinstance(a, dict) and isinstance(b, dict) and depth < DIFF_DEPTH:
        for key in sorted(set(a) | set(b), key=str):
            sub = f"{path}.{key}" if path else str(key)
            _diff(name, sub, a.get(key, _ABSENT), b.get(key, _ABSENT), into, depth + 1)
        return
    into.append([name, path or "(state)", _value(a), _value(b)])


def _value(value: Any) -> str:
    return "(absent)" if value is _ABSENT else shown(value, TOOL_LIMIT)
