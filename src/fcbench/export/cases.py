"""Every judged case of one model, for the formats that carry samples (every_eval_ever's
instance-level JSONL, Inspect logs): the question, the raw answer, the verdict and why.

Why from the folders and not from the results document: the document holds counts only
(it is what other tools read for scores); per-case verdicts live in the official score
files (the failures, with their error) and the data set (every id judged), the answers in
the result folders. `score.runs` already joins the first two for `compare` and the report;
this adds the question and the answer, so a sample's verdict is exactly the score file's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fcbench.export import ExportError

if TYPE_CHECKING:
    from fcbench.score.runs import CategoryRun


@dataclass(frozen=True)
class Case:
    """One judged case as a sample."""

    category: str
    id: str
    question: Any
    """The data set's question (a list of turns, each a list of messages)."""
    functions: Any
    expected: Any
    """The possible answer (None where the category has none)."""
    answer: Any
    """The result file's `result` (None: no result file holds the case)."""
    valid: bool
    error_type: str | None = None
    error: Any = None
    """The score file's `error` of a failed case."""
    usage: Mapping[str, Any] = field(default_factory=dict)
    """The result entry's token counts and latency, as the result file has them."""

    @property
    def interaction(self) -> str:
        """every_eval_ever's interaction type: multi-turn and memory conversations are
        multi_turn, web search agentic, the rest single_turn."""
        from fcbench.core import categories as reg

        if self.category in reg.WEB_SEARCH:
            return "agentic"
        if self.category in reg.MULTI_TURN or self.category in reg.MEMORY:
            return "multi_turn"
        return "single_turn"


@dataclass(frozen=True)
class CaseSource:
    """Where a model's cases are read: the score folders, the result folders, the data."""

    score_dirs: Sequence[Path]
    result_dirs: Sequence[Path]
    release: str
    data_root: Path | None = None
    problems: list[str] = field(default_factory=list)
    """Categories left out, one line each (the command prints them as warnings)."""

    def cases(self, model_folder: str) -> dict[str, list[Case]]:
        """category -> its judged cases in data-set order (format_sensitivity is not
        samples: it has no per-case verdict).

        Every folder holding the model counts (the later one's category wins, as the
        scores merge). A category whose cases cannot be told apart (a partial run without
        its result file; a score file whose failures do not add up to its counts) is left
        out and said in `problems`; none left is an ExportError."""
        from fcbench.report.html.collect import Sources
        from fcbench.score.runs import RunError, dataset_ids, read_run

        sources = Sources.find(self.result_dirs)
        ids = dataset_ids(self.release, self.data_root)
        found: dict[str, list[Case]] = {}
        for score_dir in self.score_dirs:
            try:
                run = read_run(Path(score_dir), model_folder, ids, self.problems,
                               sources.answered)
            except RunError:
                continue
            entries = sources.entries(model_folder)
            for name, category in run.categories.items():
                listed = category.score.total - category.score.correct
                if len(category.failures) != listed:
                    self.problems.append(
                        f"{model_folder}: {name} left out: its score file lists "
                        f"{len(category.failures)} failed cases, its counts say {listed}")
                    continue
                found[name] = self._category(name, category, entries.get(name, {}))
        if not found:
            raise ExportError(f"no category of model {model_folder!r} can be read case by "
                              f"case in {', '.join(map(str, self.score_dirs))}"
                              + "".join(f"; {p}" for p in self.problems[:3]))
        return found

    def _category(self, name: str, run: CategoryRun,
                  entries: Mapping[str, Mapping[str, Any]]) -> list[Case]:
        from fcbench.dataset.load import load_category

        data = {case.id: case for case in load_category(name, self.release, self.data_root)}
        cases = []
        for case_id in run.ids:
            test = data.get(case_id)
            failure = run.failures.get(case_id)
            entry = entries.get(case_id) or {}
            cases.append(Case(
                category=name, id=case_id,
                question=test.question if test else None,
                functions=test.functions if test else None,
                expected=test.possible_answer if test else None,
                answer=entry.get("result"),
                valid=failure is None,
                error_type=run.error_type(case_id),
                error=None if failure is None else failure.get("error"),
                usage={k: v for k, v in entry.items() if k != "result" and k != "id"},
            ))
        return cases


def text_of(value: Any) -> str:
    """A value as sample text: strings as they are, anything else as compact JSON."""
    from fcbench._json import dumps_total

    return value if isinstance(value, str) else dumps_total(value)


def turns_of(question: Any) -> list[list[Mapping[str, Any]]]:
    """The question's turns, each a list of messages (`role`, `content`); a question of
    another shape is one user message holding its text."""
    if isinstance(question, list) and all(isinstance(t, list) for t in question):
        return [[m for m in turn if isinstance(m, Mapping)] for turn in question]
    return [[{"role": "user", "content": text_of(question)}]]


def prompt_text(question: Any) -> str:
    """The user side of the question as one text: each message's content, in order, a
    blank line apart (the system prompts the data set carries included)."""
    return "\n\n".join(text_of(m.get("content", "")) for turn in turns_of(question)
                       for m in turn)


def answer_turns(case: Case) -> list[str]:
    """The model's answer per turn as text: one entry for a single-turn case; for a turn-based
    one, each turn's steps joined by newlines (a turn the result lacks is empty)."""
    if case.answer is None:
        return []
    if case.interaction == "single_turn" or not isinstance(case.answer, list):
        return [text_of(case.answer)]
    return ["\n".join(text_of(step) for step in turn) if isinstance(turn, list)
            else text_of(turn) for turn in case.answer]


def usage_totals(case: Case) -> tuple[int | None, int | None, float | None]:
    """Input tokens, output tokens and latency in seconds of the case's answer (summed over
    turns), None where the result file does not say, or says something no count can be (a
    negative, NaN or infinite figure, or a sum past a float): the formats want finite
    non-negative numbers, and a wrong figure is worse than none."""
    from fcbench.score.usage import Usage

    usage = Usage()
    usage.add(case.usage)
    tokens_in, tokens_out = _total(usage.input_tokens), _total(usage.output_tokens)
    return (None if tokens_in is None else int(tokens_in),
            None if tokens_out is None else int(tokens_out),
            _total(usage.latencies, scale=1000))


def _total(values: list[float], scale: float = 1) -> float | None:
    """The sum, when every value is a finite non-negative number and so is the sum times
    `scale` (the unit the format writes: latency in milliseconds)."""
    if not values or not all(math.isfinite(v) and v >= 0 for v in values):
        return None
    total = sum(map(float, values))  # not fsum, nor ints: an overflowing sum is inf here
    return total if math.isfinite(total * scale) else None


def conversation(case: Case, answers: list[str]) -> list[tuple[str, str]]:
    """(role, text) in order: each turn's messages from the question (system ones
    included), then the model's answer to that turn."""
    messages: list[tuple[str, str]] = []
    turns = turns_of(case.question)
    for index in range(max(len(turns), len(answers))):
        for message in turns[index] if index < len(turns) else []:
            messages.append((str(message.get("role", "user")),
                             text_of(message.get("content", ""))))
        if index < len(answers):
            messages.append(("assistant", answers[index]))
    return messages


def file_text(value: Any, indent: int | None = None) -> str:
    """A file's JSON text as it will be written: secret values masked (`redact.values`, as
    every sink does; masking again in the command changes nothing), a non-finite number as
    the string every_eval_ever's schema uses for one (`"NaN"`, `"Infinity"`, `"-Infinity"`:
    a bare NaN is not JSON, and its validator and strict readers refuse it), and a lone
    surrogate a model's text can hold as its JSON escape (`\\ud800`), so the text encodes to
    UTF-8 and reads back to the same string; a checksum of it is the file's."""
    from fcbench import redact
    from fcbench._json import dumps_total

    text = dumps_total(value, indent=indent)
    if "NaN" in text or "Infinity" in text:
        text = _BARE_CONSTANT.sub(_quoted, text)
    text = redact.values(text)
    return text.encode("utf-8", errors="backslashreplace").decode("utf-8")


_BARE_CONSTANT = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|-?Infinity|NaN')
"""A JSON string (left as it is) or a bare non-finite constant Python's writer puts where a
float is NaN or infinite (never inside a string: those are quoted and escaped)."""


def _quoted(match: re.Match[str]) -> str:
    found = match.group(0)
    return found if found.startswith('"') else f'"{found}"'
