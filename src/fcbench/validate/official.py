"""`fcbench data validate`: check a dataset before any model is asked.

A dataset is a folder laid out like the official `data/` (or a fetched release). Every file
that belongs to a known category is read line by line, and every defect found becomes a
`Finding` with its file, line and case id, so one run lists them all (loading stops at the
first). What is checked, in order:

* each line is a JSON object; each case has a string id, unique in its file, starting with
  its category's name; its `question` is a list of turns of `{role, content}` messages;
* function docs: name, description, `parameters.properties` and `required`, each property's
  type known to the language's Gorilla type table, `items` for arrays (`calls`);
* possible answers: one per case and no more, each expected call naming a documented
  function (the first doc for simple categories), documented parameters, every required
  one, acceptable values of the declared type and inside the enum (`calls`);
* multi-turn cases: known classes, initial configs that load into fcbench's environments,
  held-out functions, one ground-truth turn per question turn, call strings that parse and
  call documented functions (`multi_turn`);
* agentic answers, memory prerequisite conversations, the format-sensitivity selection;
* data files that no category claims (warnings: they are not checked).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fcbench.core import categories
from fcbench.core.categories import Category, Checker
from fcbench.dataset.fetch import DEFAULT_RELEASE, data_files
from fcbench.dataset.source import FUNC_DOC_FILES, Source, source
from fcbench.layout import func_doc_file
from fcbench.validate.calls import Docs, check_docs, check_expected_calls
from fcbench.validate.findings import Finding, Place, Recorder, Report, read_rows
from fcbench.validate.multi_turn import (
    ClassDocs,
    check_call_string,
    check_multi_turn_answer,
    check_multi_turn_question,
)

__all__ = ["validate", "validate_categories"]

ROLES = frozenset({"system", "user", "assistant", "tool"})
_AST = frozenset({Checker.AST_SIMPLE, Checker.AST_MULTIPLE, Checker.AST_PARALLEL})
_EXEC_CALLS = frozenset({Checker.EXEC_SIMPLE, Checker.EXEC_MULTIPLE, Checker.EXEC_PARALLEL})
"""Executable checkers whose answers are call strings (`rest` answers are responses)."""
MEMORY_SCENARIOS = ("student", "customer", "finance", "healthcare", "notetaker")


@dataclass
class _Question:
    line: int
    entry: dict[str, Any]
    docs: Docs | None
    """The case's docs by name (None when they are too broken to check answers against)."""


def validate(release: str | None = None, data_root: Path | str | None = None) -> Report:
    """Every finding in a fetched release (default) or in a folder laid out like `data/`."""
    src = source(release or DEFAULT_RELEASE, data_root)
    label = str(data_root) if data_root is not None else f"bfcl-eval {src.release}"
    run = _Validation(src)
    run.everything()
    files = run.files + run.class_docs.files
    return Report(label, src.naming.prefix, run.rec.findings, files, run.cases)


def validate_categories(
    src: Source, rows: Iterable[Category]
) -> tuple[list[Finding], int, int]:
    """(findings, files read, cases) of some categories read from `src` (e.g. a custom
    dataset's own source, `validate_custom`)."""
    run = _Validation(src)
    run.keep_ids = False  # no format-sensitivity selection to check: a million ids not kept
    for cat in rows:
        run.category(cat)
    return run.rec.findings, run.files + run.class_docs.files, run.cases


class _Validation:
    def __init__(self, src: Source) -> None:
        self.src = src
        self.naming = src.naming
        self.rec = Recorder()
        self.class_docs = ClassDocs(src, self.rec)
        self.files = 0
        self.cases = 0
        self.claimed: set[str] = set()
        self.ids: dict[str, set[str]] = {}
        """Category -> today's ids of its cases (for the format-sensitivity selection)."""
        self.keep_ids = True

    def everything(self) -> None:
        for cat in categories.all_categories():
            if cat.name != "format_sensitivity" and self.src.has(self.naming.question_file(cat)):
                self.category(cat)
        self.format_sensitivity()
        self.memory_prereqs()
        self.unclaimed_files()

    # ----------------------------------------------------------------------- categories

    def category(self, cat: Category) -> None:
        qfile = self.naming.question_file(cat)
        if qfile in self.claimed:  # web search and memory categories share their files
            return
        self.claimed.add(qfile)
        rel = self.naming.answer_file(cat)
        paired = cat.has_possible_answer and self.src.has(rel)
        qlines, alines = self.src.stream_pair(qfile, rel) if paired else (None, None)
        questions = self.questions(cat, qfile, qlines)
        if not cat.has_possible_answer:
            for _ in questions:
                pass
            return
        self.claimed.add(rel)
        if alines is None:
            count = sum(1 for _ in questions)
            self.rec.error("missing-file", Place(rel),
                           f"{cat.name} has no possible-answer file ({count} cases)")
            return
        self.files += 1
        self.answers(cat, questions, qfile, rel, alines)

    def questions(
        self, cat: Category, rel: str, lines: Iterator[str] | None = None
    ) -> Iterator[tuple[str, _Question]]:
        """Each case of the question file, checked, one at a time (id, what its answer is
        checked against)."""
        self.files += 1
        rows: Iterable[tuple[int, dict[str, Any]]] = read_rows(self.src, rel, self.rec, lines)
        if cat.name == "chatable":  # the legacy file has no ids; loading numbers its lines
            rows = [(n, {**e, "id": f"chatable_{i}"}) for i, (n, e) in enumerate(rows)]
        prefix = self.naming.stem(cat) + "_"
        ids: set[str] = set()
        if self.keep_ids:
            self.ids[cat.name] = ids
        for place, entry in self.identified(rel, rows, self.rec):
            case_id = str(place.case_id)
            if not case_id.startswith(prefix):
                self.rec.warning("id-prefix", place,
                                 f"the id does not start with {prefix!r} (ids name their category)")
            self.cases += 1
            docs = self.question(cat, entry, place)
            if cat.checker in _AST:  # what answers are checked against: not the conversation
                entry = {"function": entry.get("function")}
            if self.keep_ids:
                ids.add(self.naming.today_id(cat, case_id))
            yield case_id, _Question(place.line or 0, entry, docs)

    def identified(
        self, rel: str, rows: Iterable[tuple[int, dict[str, Any]]], rec: Recorder
    ) -> Iterator[tuple[Place, dict[str, Any]]]:
        """The rows with a string id not seen before in the file (the others are findings)."""
        seen: dict[str, int] = {}
        for number, entry in rows:
            case_id = entry.get("id")
            if not isinstance(case_id, str) or not case_id:
                rec.error("missing-id", Place(rel, number), "the line has no string id")
                continue
            place = Place(rel, number, case_id)
            if case_id in seen:
                rec.error("duplicate-id", place,
                          f"the id is used already on line {seen[case_id]}")
                continue
            seen[case_id] = number
            yield place, entry

    def question(self, cat: Category, entry: dict[str, Any], place: Place) -> Docs | None:
        """The case's question and docs; returns its usable docs by name."""
        self.turns(cat, entry.get("question"), place)
        if cat.checker == Checker.MULTI_TURN:
            return check_multi_turn_question(entry, place, self.rec, self.class_docs)
        if cat.checker == Checker.AGENTIC:
            self.agentic_question(cat, entry, place)
            return {}
        if cat.checker == Checker.NONE:
            return {}
        functions = entry.get("function")
        if cat.has_possible_answer and isinstance(functions, list) and not functions:
            self.rec.error("schema", place, "the case has no function docs")
        return check_docs(functions, cat.language, place, self.rec)

    def turns(self, cat: Category, question: Any, place: Place, multi: bool = False) -> None:
        """A list of turns, each a list of messages (multi-turn: a turn may be empty)."""
        if cat.name == "chatable" and isinstance(question, str):
            return
        if cat.name == "sql" and question and all(isinstance(m, dict) for m in question):
            question = [question]  # legacy flat message list (loading wraps it likewise)
        if not isinstance(question, list) or not question:
            self.rec.error("schema", place, "`question` is not a non-empty list of turns")
            return
        multi = multi or cat.checker == Checker.MULTI_TURN
        if not multi and len(question) != 1:
            self.rec.warning("turn-count", place,
                             f"{len(question)} turns in a single-turn case (only one is asked)")
        for index, turn in enumerate(question):
            if not isinstance(turn, list) or (not turn and not multi):
                self.rec.error("schema", place, f"turn {index} is not a non-empty message list")
                continue
            for message in turn:
                self.message(message, index, place)

    def message(self, message: Any, turn: int, place: Place) -> None:
        if (
            not isinstance(message, dict)
            or not isinstance(message.get("role"), str)
            or not isinstance(message.get("content"), str)
        ):
            self.rec.error("schema", place,
                           f"turn {turn}: a message is not {{role: str, content: str}}")
        elif message["role"] not in ROLES:
            self.rec.warning("unknown-role", place,
                             f"turn {turn}: message role {message['role']!r} is unusual")

    def agentic_question(self, cat: Category, entry: dict[str, Any], place: Place) -> None:
        classes = entry.get("involved_classes")
        if not isinstance(classes, list) or not classes:
            self.rec.error("schema", place, "`involved_classes` is not a non-empty list")
        if cat.stem == "memory" and entry.get("scenario") not in MEMORY_SCENARIOS:
            self.rec.error("schema", place,
                           f"memory scenario {entry.get('scenario')!r} is none of "
                           f"{', '.join(MEMORY_SCENARIOS)}")

    # ----------------------------------------------------------------------- answers

    def answers(
        self,
        cat: Category,
        questions: Iterator[tuple[str, _Question]],
        qfile: str,
        rel: str,
        lines: Iterator[str],
    ) -> None:
        """Questions and answers read together, a line of each in turn: a case is kept only
        until its answer comes (line-aligned files keep one), so a file of a million cases
        is checked in bounded memory. The findings come in the order of reading all
        questions first, then all answers (each answer's findings are tagged with its
        place in the answer file and sorted), then the unanswered cases."""
        side = Recorder()
        answers = self.identified(rel, read_rows(self.src, rel, side, lines), side)
        pending: dict[str, _Question] = {}
        """Cases read whose answer has not come yet."""
        waiting: dict[str, tuple[int, Place, dict[str, Any]]] = {}
        """Answers read whose case has not come yet (answer index, place, line)."""
        tagged: list[tuple[int, Finding]] = []
        index, more_questions, more_answers = 0, True, True
        while more_questions or more_answers:
            if more_questions:
                item = next(questions, None)
                more_questions = item is not None
                if item is not None:
                    early = waiting.pop(item[0], None)
                    if early is None:
                        pending[item[0]] = item[1]
                    else:
                        tagged += self.answered(cat, item[1], early, side)
            if more_answers:
                index += 1
                row = next(answers, None)
                more_answers = row is not None
                tagged += [(index, f) for f in side.findings]
                side.findings.clear()
                if row is not None:
                    question = pending.pop(str(row[0].case_id), None)
                    if question is None and more_questions:
                        waiting[str(row[0].case_id)] = (index, *row)
                    else:
                        tagged += self.answered(cat, question, (index, *row), side)
        for early in waiting.values():
            tagged += self.answered(cat, None, early, side)
        tagged.sort(key=lambda pair: pair[0])
        self.rec.findings.extend(finding for _, finding in tagged)
        for case_id, question in pending.items():
            self.rec.error("missing-answer", Place(qfile, question.line, case_id),
                           f"no line of {rel} answers this case (loading it fails)")

    def answered(
        self,
        cat: Category,
        question: _Question | None,
        answer: tuple[int, Place, dict[str, Any]],
        side: Recorder,
    ) -> list[tuple[int, Finding]]:
        """The findings of one answer (None: no case has its id), tagged with its index."""
        index, place, raw = answer
        main, self.rec = self.rec, side
        try:
            if question is None:
                qfile = self.naming.question_file(cat)
                side.warning("orphan-answer", place, f"no case of {qfile} has this id")
            elif "ground_truth" not in raw:
                side.error("schema", place, "the answer has no `ground_truth`")
            elif question.docs is not None:
                self.answer(cat, raw["ground_truth"], question, place)
        finally:
            self.rec = main
        found = [(index, f) for f in side.findings]
        side.findings.clear()
        return found

    def answer(self, cat: Category, truth: Any, question: _Question, place: Place) -> None:
        docs = question.docs or {}
        if cat.checker in _AST:
            functions = question.entry.get("function")
            check_expected_calls(truth, docs, functions if isinstance(functions, list) else [],
                                 cat, place, self.rec)
        elif cat.checker == Checker.MULTI_TURN:
            check_multi_turn_answer(truth, question.entry, docs, place, self.rec)
        elif cat.checker == Checker.AGENTIC:
            if not isinstance(truth, list) or not truth or not all(
                isinstance(t, str) and t for t in truth
            ):
                self.rec.error("schema", place,
                               "`ground_truth` is not a non-empty list of answer strings")
        elif cat.checker in _EXEC_CALLS:
            if not isinstance(truth, list) or not truth:
                self.rec.error("schema", place, "`ground_truth` is not a list of call strings")
                return
            for call in truth:
                check_call_string(call, docs, place, self.rec, "ground truth")

    # ----------------------------------------------------------------------- other files

    def format_sensitivity(self) -> None:
        import json

        rel = self.naming.format_sensitivity_file()
        if not self.src.has(rel):
            return
        self.claimed.add(rel)
        self.files += 1
        try:
            selected = json.loads(self.src.read(rel))
        except ValueError as exc:
            self.rec.error("json", Place(rel), f"not one JSON object ({exc})")
            return
        if not isinstance(selected, dict):
            self.rec.error("schema", Place(rel), "not a JSON object of category -> ids")
            return
        for name, ids in selected.items():
            known = self.ids.get(name)
            if known is None:
                self.rec.error("unknown-id", Place(rel), f"selects from {name!r}, not in the data")
                continue
            for case_id in ids if isinstance(ids, list) else [ids]:
                if case_id not in known:
                    self.rec.error("unknown-id", Place(rel, None, str(case_id)),
                                   f"selected from {name}, which has no such case")

    def memory_prereqs(self) -> None:
        for scenario in MEMORY_SCENARIOS:
            rel = f"memory_prereq_conversation/memory_{scenario}.json"
            if not self.src.has(rel):
                continue
            self.claimed.add(rel)
            self.files += 1
            rows = read_rows(self.src, rel, self.rec)
            for place, entry in self.identified(rel, rows, self.rec):
                self.cases += 1
                self.turns(categories.get("memory_kv"), entry.get("question"), place, multi=True)
                if entry.get("scenario") != scenario:
                    self.rec.error("schema", place,
                                   f"scenario {entry.get('scenario')!r} in the {scenario} file")

    def unclaimed_files(self) -> None:
        self.claimed.update(func_doc_file(name) for name in FUNC_DOC_FILES.values())
        for rel in _all_files(self.src):
            if rel.endswith(".json") and rel not in self.claimed and (
                "executable_eval_sanity_check/" not in rel
            ):
                self.rec.warning("unknown-file", Place(rel),
                                 "no category reads this file; it was not checked")


def _all_files(src: Source) -> list[str]:
    """Every data file (relative to `data/`): the release's manifest, or the folder's tree."""
    if src.root is None:
        return sorted(data_files(src.release))
    root = src.root
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )
