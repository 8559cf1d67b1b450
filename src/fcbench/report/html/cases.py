"""One case as the report shows it: what the model said, what it decoded to, why it failed.

Why a slim form: the page holds every case of every model, so each detail keeps what a
reader needs (long texts cut with a note), and multi-turn cases keep the turn-by-turn
conversation with the *differences* between state snapshots instead of every snapshot
(the snapshots are most of a multi-turn result file's size).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fcbench.dataset.categories import Category

TEXT_LIMIT = 4000
"""Characters of one text shown in full; longer ones are cut with a note."""
TOOL_LIMIT = 600
"""Characters of one tool (execution) result in a multi-turn step."""
DIFF_DEPTH = 3


def clip(text: str, limit: int = TEXT_LIMIT) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit:,} more characters]"


def shown(value: Any, limit: int = TEXT_LIMIT) -> str:
    """Any JSON value as text for the page (strings as they are)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return clip(text, limit)


def failure_detail(
    category: Category, entry: Mapping[str, Any] | None, failure: Mapping[str, Any]
) -> dict[str, Any]:
    """A failed case's detail, in the form its category's checker kind calls for."""
    from fcbench.dataset.categories import Checker

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
    detail["error"] = shown(failure.get("error"))
    return detail


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
