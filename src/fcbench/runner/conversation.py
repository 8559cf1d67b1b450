"""The conversation loop (spec §6.1) of every case that runs against environments.

One case is one unit of work: its turns are asked in order, each turn in steps. A step is one
`Backend.step` (one `Guard.call`, so retries, rate limits and counters are the runner's); its
answer is decoded into call strings with the evaluator's `decode_execute`, the calls run on the
case's own environments (`envs.scenario`, never `eval`), and the results go back the official
way:

* FC mode: the assistant message, then one `tool` message per call answering its id (each
  backend puts these into its own API's layout);
* prompt mode: one `user` message holding the Python repr of a list of
  `{"role": "tool", "name": <call string>, "content": <result>}`;
* a backend with its own `TurnLayout` (the open-model prompt formats): the turns and the
  result messages it lays out (e.g. one `tool` message per call, named by its call string).

A step that does not decode, or decodes to no call, ends the turn. Past the step limit
(`MAXIMUM_STEP_LIMIT` of the release, 20) within a turn the case is force-quit: that turn is
kept and no further turn is asked, so the result is shorter than the ground truth and the
checker fails it as force-terminated. miss_func's held-out docs are released at their turn
(FC: added to the tools; prompt: the release's user message naming them). The stored entry
has the official shapes: `result` is a list of turns, each a list of raw step outputs; token
counts and latencies are lists of lists; the `inference_log` holds state snapshots and per-turn
step logs. Whatever happens mid-case, the runner records the whole case as failed and the next
run asks it again from its first turn.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcbench import redact
from fcbench.core.model import TestCase
from fcbench.dataset.prompt_texts import PromptTexts
from fcbench.decode.encoding import Encoding
from fcbench.decode.errors import DecodeError
from fcbench.decode.execute import decode_execute, is_empty_execution
from fcbench.envs.scenario import Scenario
from fcbench.models.base import (
    Backend,
    ChatRequest,
    Mode,
    Reply,
    Response,
    StepContext,
    TurnLayout,
    layout_of,
    plain_copy,
)
from fcbench.models.prompts import build_request, language_of, layout_request, with_language_hints
from fcbench.models.tools import convert_tools
from fcbench.runner import agentic
from fcbench.runner.env_calls import CaseCalls
from fcbench.runner.retry import CallFailed, Guard

__all__ = ["Conversation", "LoopSettings", "has_environments", "run_conversation", "step_limit"]

DEFAULT_STEP_LIMIT = 20


def has_environments(case: TestCase) -> bool:
    """A case that runs against environments (multi-turn, agentic): a conversation."""
    return bool(case.extras.get("involved_classes"))


@dataclass
class LoopSettings:
    """How a conversation is run."""

    mode: Mode
    texts: PromptTexts
    model_name: str = "fcbench"
    step_limit: int = DEFAULT_STEP_LIMIT
    state_log: bool = True
    release: str | None = None
    model_dir: Path | None = None
    """The model's result folder (memory snapshots live below it)."""


def step_limit(texts: PromptTexts) -> int:
    """The release's `MAXIMUM_STEP_LIMIT` (20 when absent)."""
    value = texts.prompts.get("MAXIMUM_STEP_LIMIT", DEFAULT_STEP_LIMIT)
    return value if isinstance(value, int) else DEFAULT_STEP_LIMIT


# --------------------------------------------------------------------------- conversation


class Conversation:
    """The messages (and FC tools) sent at each step, grown the official way."""

    def __init__(
        self, case: TestCase, mode: Mode, texts: PromptTexts, layout: TurnLayout | None = None
    ) -> None:
        self.case = case
        self.mode = mode
        self.texts = texts
        self.layout = layout
        self.question = case.question
        """The turns as asked (a backend with its own layout may rewrite them)."""
        if layout is None:
            first = build_request(case, mode, texts)  # turn 0 as single-turn sends it
        else:
            first, self.question = layout_request(case, texts, layout)
        self.first_turn = first.messages
        self.messages: list[dict[str, Any]] = []
        self.functions = with_language_hints(case.functions, language_of(case))
        self.tools = first.tools

    def request(self, turn: int, step: int) -> ChatRequest:
        return ChatRequest(list(self.messages), self.tools, self.mode, self.functions,
                           StepContext(self.case, turn, step))

    def begin_turn(self, turn: int, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Append the turn's messages (turn 0 with the system prompt); returns them."""
        added = self.first_turn if turn == 0 else plain_copy(messages)
        self.messages.extend(added)
        return added

    def holdout_message(self, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Release held-out docs; the user message of that turn (the release's wording)."""
        prompts = self.texts.prompts
        if self.mode == "fc":
            self.functions = self.functions + plain_copy(docs)
            self.tools = convert_tools(self.functions, self.texts.type_map) or None
            text = str(prompts["DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC"])
        else:
            template = str(prompts["DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_PROMPTING"])
            text = template.format(functions=docs)
        return [{"role": "user", "content": text}]

    def add_reply(self, reply: Reply) -> None:
        self.messages.append(reply.history_message())

    def add_results(self, reply: Reply, calls: list[str], results: list[str]) -> None:
        if self.layout is not None:
            self.messages.extend(self.layout.result_messages(reply, calls, results))
            return
        if self.mode == "fc":
            # zip truncates like upstream: a call without an id gets no answer
            for result, call_id in zip(results, reply.tool_call_ids, strict=False):
                self.messages.append({"role": "tool", "content": result, "tool_call_id": call_id})
            return
        pairs = zip(results, calls, strict=True)
        rows = [{"role": "tool", "name": call, "content": result} for result, call in pairs]
        self.messages.append({"role": "user", "content": repr(rows)})


# --------------------------------------------------------------------------- the record


@dataclass
class _Record:
    """What the loop collects for the result entry (one inner list per turn)."""

    result: list[list[Any]] = field(default_factory=list)
    input_tokens: list[list[Any]] = field(default_factory=list)
    output_tokens: list[list[Any]] = field(default_factory=list)
    latency: list[list[float]] = field(default_factory=list)
    reasoning: list[list[str]] = field(default_factory=list)
    cost: list[list[Any]] = field(default_factory=list)
    """Each step's price when the backend gives one (`Reply.extras["cost"]`: LiteLLM)."""
    log: list[Any] = field(default_factory=list)
    attempts: int = 0
    force_quit: bool = False

    def start_turn(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """Open a turn; returns its log (`begin_of_turn_query`, then `step_N` lists)."""
        for lists in (self.result, self.input_tokens, self.output_tokens, self.latency,
                      self.reasoning, self.cost):
            lists.append([])
        turn_log: dict[str, Any] = {"begin_of_turn_query": plain_copy(messages)}
        self.log.append(turn_log)
        return turn_log

    def add_step(self, reply: Reply, attempts: int) -> dict[str, Any]:
        """Record one answer; returns its `assistant` log entry."""
        self.attempts += attempts
        self.result[-1].append(reply.result)
        self.input_tokens[-1].append(reply.input_tokens)
        self.output_tokens[-1].append(reply.output_tokens)
        self.latency[-1].append(reply.latency)
        self.reasoning[-1].append(reply.reasoning)
        self.cost[-1].append(reply.extras.get("cost"))
        entry: dict[str, Any] = {"role": "assistant", "content": reply.result}
        if reply.reasoning:
            entry["reasoning_content"] = reply.reasoning
        return entry

    def response(self) -> Response:
        extras: dict[str, Any] = {
            "input_token_count": self.input_tokens,
            "output_token_count": self.output_tokens,
            "latency": self.latency,
            "inference_log": self.log,
        }
        if any(text for turn in self.reasoning for text in turn):
            extras["reasoning_content"] = self.reasoning
        if any(cost is not None for turn in self.cost for cost in turn):
            extras["cost"] = self.cost
        return Response(
            result=self.result,
            input_tokens=sum(n or 0 for turn in self.input_tokens for n in turn),
            output_tokens=sum(n or 0 for turn in self.output_tokens for n in turn),
            latency=sum(x for turn in self.latency for x in turn),
            finish_reason="force_quit" if self.force_quit else "stop",
            extras=extras,
        )


# --------------------------------------------------------------------------- the loop


async def run_conversation(
    case: TestCase, backend: Backend, guard: Guard, settings: LoopSettings
) -> tuple[Response, int]:
    """Every turn of one case; (the entry's response, attempts over all steps)."""
    loop = _Loop(case, backend, guard, settings)
    case = loop.case
    holdout: dict[str, list[dict[str, Any]]] = case.extras.get("missed_function") or {}
    loop.log_state()
    for turn, messages in enumerate(loop.conversation.question):
        if str(turn) in holdout:
            messages = loop.conversation.holdout_message(holdout[str(turn)])
        await loop.run_turn(turn, loop.conversation.begin_turn(turn, messages))
        loop.log_state()
        if loop.record.force_quit:
            break
    agentic.finish(case, loop.env)
    failures = tool_failures(loop.env)
    if failures:
        raise ToolFailed(failures, loop.record.attempts)
    return loop.record.response(), loop.record.attempts


TOOL_FAILED = "web tool failed: "
"""How the `error` of a case errored by a failed tool starts (`ToolFailed`)."""


class ToolFailed(CallFailed):
    """A case during which a web tool failed (`envs.web_search.failure`): the model read the
    official error, but what it answered says nothing of it, so the case is recorded as
    errored (its reason counted, the early stop watching it like any failure) and the next
    run asks it again."""

    in_a_row = True
    """`--stop-after` alike failures in a row stop the run wherever they happen (a provider
    down or out of quota mid-run would fail every later case; `runner.failures`)."""

    def __init__(self, reasons: list[str], attempts: int) -> None:
        more = f" (and {len(reasons) - 1} more failed call(s))" if len(reasons) > 1 else ""
        super().__init__(f"{TOOL_FAILED}{reasons[0]}{more}", attempts)
        self.reasons = reasons


def tool_failures(env: Scenario) -> list[str]:
    """The reasons of the failed tool calls of a case's environments (none created: none)."""
    from fcbench.envs.web_search.failure import FAILURES_ATTRIBUTE

    if not env.created:
        return []
    return [reason for instance in env.instances.values()
            for reason in getattr(instance, FAILURES_ATTRIBUTE, ())]


class _Loop:
    """One case's conversation: its environments, messages, model and record."""

    def __init__(
        self, case: TestCase, backend: Backend, guard: Guard, settings: LoopSettings
    ) -> None:
        case = agentic.with_memory_config(case, settings.model_dir)
        agentic.restore_chain(case, settings.model_dir)
        self.env = Scenario(case, settings.model_name, settings.release)
        self.case = agentic.first_turn_case(case, self.env, settings.texts)
        self.conversation = Conversation(self.case, settings.mode, settings.texts,
                                         layout_of(backend))
        self.encoding = step_encoding(settings.mode, backend)
        self.backend = backend
        self.guard = guard
        self.settings = settings
        self.record = _Record()
        self.calls = CaseCalls()

    def log_state(self) -> None:
        if self.settings.state_log:
            snapshot = self.env.state_log()
            if snapshot:
                self.record.log.append(snapshot)

    async def run_turn(self, turn: int, messages: list[dict[str, Any]]) -> None:
        """Steps until the model stops calling (or fails to decode), or the limit is passed."""
        turn_log = self.record.start_turn(messages)
        count = 0
        while True:
            step_log: list[dict[str, Any]] = []
            turn_log[f"step_{count}"] = step_log
            if not await self._step(turn, count, step_log):
                return
            count += 1
            if count > self.settings.step_limit:
                self.record.force_quit = True
                step_log.append({"role": "handler_log", "content": "Model has been forced to "
                                 f"quit after {self.settings.step_limit} steps."})
                return

    async def _step(self, turn: int, count: int, step_log: list[dict[str, Any]]) -> bool:
        """Ask, record, decode and execute one step; False when the turn ends."""
        request = self.conversation.request(turn, count)
        reply, attempts = await self.guard.call(_bind(self.backend, request))
        self.conversation.add_reply(reply)
        step_log.append(self.record.add_step(reply, attempts))
        calls = _decode(reply.result, self.encoding, step_log)
        if calls is None:
            return False
        results = await self.calls.execute(self.env, calls)  # off the event loop, budgeted
        results = [redact.values(r) for r in results]  # what goes to the model holds no key
        self.conversation.add_results(reply, calls, results)
        step_log.extend({"role": "tool", "content": r} for r in results)
        return True


def _bind(backend: Backend, request: ChatRequest) -> Callable[[], Awaitable[Reply]]:
    def call() -> Awaitable[Reply]:
        return backend.step(request)

    return call


def _decode(raw: Any, encoding: Encoding, log: list[dict[str, Any]]) -> list[str] | None:
    """The step's call strings, or None when the turn ends (logged the official way)."""
    try:
        calls = decode_execute(raw, encoding)
    except DecodeError as exc:
        log.append({"role": "handler_log",
                    "content": "Error decoding the model response. Proceed to next turn.",
                    "error": str(exc)})
        return None
    log.append({"role": "handler_log", "content": "Successfully decoded model response.",
                "model_response_decoded": calls})
    if is_empty_execution(calls):
        log.append({"role": "handler_log",
                    "content": "Empty response from the model. Proceed to next turn.",
                    "model_response_decoded": calls})
        return None
    return calls


def step_encoding(mode: Mode, backend: Backend) -> Encoding:
    """How the loop decodes a step: FC results with the backend's argument encoding; a
    backend with its own layout says how its results decode."""
    layout = layout_of(backend)
    if layout is not None:
        return layout.output_encoding  # type: ignore[no-any-return]
    if mode == "fc":
        return Encoding("fc", "underscore", getattr(backend, "fc_args", "json_string"))
    return Encoding()
