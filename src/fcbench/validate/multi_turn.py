"""Multi-turn cases checked for `validate`: classes, initial configs, held-out functions and
the ground truth's call strings.

An initial config is loaded into fcbench's own environment for each involved class
(`envs.multi_turn.load_class(name)()._load_scenario(config)`), exactly as a run or an
evaluation will load it, so a config that would stop a case is found before any model is
asked. (Loaded without the long-context filler, which is the same constant data for every
case.) Call strings are parsed with `ast`, never run.
"""

from __future__ import annotations

import ast
import copy
from typing import Any

from fcbench.core.categories import Language
from fcbench.dataset.source import FUNC_DOC_FILES, Source
from fcbench.layout import func_doc_file
from fcbench.validate.calls import Docs, check_docs
from fcbench.validate.findings import Place, Recorder, read_rows

__all__ = [
    "ClassDocs",
    "check_call_string",
    "check_multi_turn_answer",
    "check_multi_turn_question",
]

class ClassDocs:
    """The function docs of each multi-turn class, read and checked once per validation."""

    def __init__(self, src: Source, rec: Recorder) -> None:
        self.src = src
        self.rec = rec
        self.files = 0
        self._docs: dict[str, Docs | None] = {}

    def get(self, cls: str) -> Docs | None:
        """The class's docs by function name (None if the class or its file is unusable)."""
        if cls not in self._docs:
            self._docs[cls] = self._read(cls)
        return self._docs[cls]

    def _read(self, cls: str) -> Docs | None:
        rel = func_doc_file(FUNC_DOC_FILES[cls])
        if not self.src.has(rel):
            self.rec.error("missing-file", Place(rel), f"{cls}'s function docs are missing")
            return None
        self.files += 1
        docs: Docs = {}
        for number, doc in read_rows(self.src, rel, self.rec):
            place = Place(rel, number)
            for name, checked in check_docs([doc], Language.PYTHON, place, self.rec).items():
                if name in docs:
                    self.rec.warning("duplicate-function", place,
                                     f"{cls} has two docs named {name!r}")
                else:
                    docs[name] = checked
        return docs


def check_multi_turn_question(
    entry: dict[str, Any], place: Place, rec: Recorder, class_docs: ClassDocs
) -> Docs | None:
    """Classes, initial config, held-out functions; returns every doc the case can call."""
    classes = entry.get("involved_classes")
    if not isinstance(classes, list) or not classes:
        rec.error("schema", place, "`involved_classes` is not a non-empty list of class names")
        return None
    docs: Docs = {}
    usable = True
    for cls in classes:
        if not isinstance(cls, str) or cls not in FUNC_DOC_FILES:
            rec.error("unknown-class", place, f"involved class {cls!r} is not a known API")
            usable = False
            continue
        found = class_docs.get(cls)
        if found is None:
            usable = False
        else:
            docs.update(found)
    _check_config(entry, [c for c in classes if isinstance(c, str)], place, rec)
    _check_missed(entry, docs, place, rec)
    _check_path(entry, docs, place, rec)
    return docs if usable else None


def _check_config(entry: dict[str, Any], classes: list[str], place: Place, rec: Recorder) -> None:
    from fcbench.envs.multi_turn import CLASSES, load_class
    from fcbench.envs.scenario import STATELESS_CLASSES

    config = entry.get("initial_config", {})
    if not isinstance(config, dict):
        rec.error("schema", place, "`initial_config` is not an object")
        return
    for cls in config:
        if cls not in classes:
            rec.warning("config-unused-class", place,
                        f"`initial_config` configures {cls!r}, which the case does not involve")
    for cls in classes:
        if cls not in CLASSES or cls in STATELESS_CLASSES:
            continue
        scenario = config.get(cls, {})
        try:
            load_class(cls)()._load_scenario(copy.deepcopy(scenario), long_context=False)
        except Exception as exc:  # any failure to load is the finding, whatever it is
            rec.error("config-load", place,
                      f"initial_config[{cls!r}] does not load: {type(exc).__name__}: {exc}")


def _check_missed(
    entry: dict[str, Any], docs: Docs, place: Place, rec: Recorder
) -> None:
    """miss_func's held-out functions: known names, at a turn that exists and is empty."""
    missed = entry.get("missed_function")
    if missed is None:
        return
    question = entry.get("question")
    turns: list[Any] = question if isinstance(question, list) else []
    if not isinstance(missed, dict):
        rec.error("schema", place, "`missed_function` is not an object of turn -> names")
        return
    for turn, names in missed.items():
        if not str(turn).isdigit() or int(turn) >= len(turns):
            rec.error("schema", place, f"`missed_function` names turn {turn!r}, which the case "
                      f"does not have ({len(turns)} turns)")
            continue
        if turns[int(turn)] != []:
            rec.warning("held-out-turn", place,
                        f"turn {turn} releases held-out functions but also asks something")
        for name in names if isinstance(names, list) else [names]:
            if name not in docs:
                rec.error("unknown-function", place,
                          f"held-out function {name!r} is in none of the involved classes")


def _check_path(
    entry: dict[str, Any], docs: Docs, place: Place, rec: Recorder
) -> None:
    """`path` and `excluded_function` are informational (no code reads them): warnings."""
    for step in entry.get("path") or []:
        name = str(step).rpartition(".")[2]
        if docs and name not in docs:
            rec.warning("unknown-path", place, f"`path` step {step!r} is no documented function")
    for name in entry.get("excluded_function") or []:
        if docs and name not in docs:
            rec.warning("unknown-path", place,
                        f"`excluded_function` {name!r} is no documented function")


def check_multi_turn_answer(
    ground_truth: Any,
    entry: dict[str, Any],
    docs: Docs,
    place: Place,
    rec: Recorder,
) -> None:
    """One list of call strings per turn; each call names a function the case has then."""
    turns = entry.get("question")
    if not isinstance(ground_truth, list) or not all(isinstance(t, list) for t in ground_truth):
        rec.error("schema", place, "`ground_truth` is not a list of turns of call strings")
        return
    if isinstance(turns, list) and len(ground_truth) != len(turns):
        rec.error("turn-count", place,
                  f"{len(ground_truth)} ground-truth turns for {len(turns)} question turns")
    held_until = _held_out(entry)
    for index, calls in enumerate(ground_truth):
        for call in calls:
            name = check_call_string(call, docs, place, rec, f"turn {index}")
            if name is not None and held_until.get(name, -1) > index:
                rec.error("held-out-function", place,
                          f"turn {index}: {call!r} uses {name!r} before it is released at turn "
                          f"{held_until[name]}")


def _held_out(entry: dict[str, Any]) -> dict[str, int]:
    """Held-out function -> the turn it is released at."""
    missed = entry.get("missed_function")
    result: dict[str, int] = {}
    if isinstance(missed, dict):
        for turn, names in missed.items():
            if str(turn).isdigit() and isinstance(names, list):
                result.update({str(n): int(turn) for n in names})
    return result


def check_call_string(
    call: Any, docs: Docs, place: Place, rec: Recorder, label: str
) -> str | None:
    """A ground-truth call string: parsed (never run), its function and keywords documented,
    its required parameters given. Returns the function's name when it is documented."""
    if not isinstance(call, str):
        rec.error("schema", place, f"{label}: call {call!r} is not a string")
        return None
    try:
        node = ast.parse(call, mode="eval").body
    except SyntaxError:
        node = None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        rec.error("call-syntax", place, f"{label}: {call!r} is not a plain function call")
        return None
    name = node.func.id
    if name not in docs:
        rec.error("unknown-function", place,
                  f"{label}: {call!r} calls {name!r}, which no doc of the case describes")
        return None
    doc = docs[name]
    if doc is not None:  # a broken doc is reported with its file
        _check_arguments(call, node, doc, label, place, rec)
    return name


def _check_arguments(
    call: str, node: ast.Call, doc: dict[str, Any], label: str, place: Place, rec: Recorder
) -> None:
    params = doc["parameters"]
    keywords = [k.arg for k in node.keywords if k.arg is not None]
    for key in keywords:
        if key not in params["properties"]:
            rec.error("unknown-param", place,
                      f"{label}: {call!r} passes {key!r}, which the doc lacks")
    missing = [r for r in params["required"] if r not in keywords]
    if len(node.args) < len(missing):
        rec.error("missing-required", place,
                  f"{label}: {call!r} lacks required {', '.join(map(repr, missing))}")
