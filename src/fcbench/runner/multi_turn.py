"""Multi-turn generation (spec §6.1): the conversation loop, as a `Solver` for the runner.

One case is one unit of work: its turns are asked in order, each turn in steps. A step
queries the model once (one `Guard.call`, so retries, rate limits and counters are the
runner's), decodes the answer into call strings with the evaluator's `decode_execute`,
runs them on the case's own environment instances through the dispatcher (never `eval`),
and feeds the results back the way the official OpenAI-compatible handlers do:

* FC mode: the assistant message as the server sent it, then one `tool` message per call
  with its `tool_call_id`;
* prompt mode: one `user` message holding the Python repr of a list of
  `{"role": "tool", "name": <call string>, "content": <result>}`.

A step that does not decode, or decodes to no call, ends the turn. After the step limit
(`MAXIMUM_STEP_LIMIT` of the release, 20) is exceeded within a turn the case is
force-quit: that turn is kept and no further turn is asked, so the result is shorter than
the ground truth and the checker fails it as force-terminated. miss_func's held-out docs
are released at their turn (FC: added to the tools; prompt: the release's user message
naming them). The stored entry has the official shapes: `result` is a list of turns, each
a list of raw step outputs; token counts and latencies are lists of lists; the
`inference_log` holds state snapshots and per-turn step logs.

Whatever happens mid-case (a request failing for good, a crash), the runner records the
whole case as failed and the next run asks it again from its first turn.
"""

from __future__ import annotations

import ast
import inspect
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from fcbench.check.multi_turn import STATELESS_CLASSES, deep_copy, is_long_context, json_safe
from fcbench.dataset.categories import Checker
from fcbench.dataset.model import TestCase
from fcbench.decode.encoding import Encoding
from fcbench.decode.errors import DecodeError
from fcbench.decode.execute import decode_execute, is_empty_execution
from fcbench.envs.multi_turn import load_class
from fcbench.envs.multi_turn.dispatch import Dispatcher, instance_label
from fcbench.models.base import ChatRequest, Mode, Response, plain_copy
from fcbench.models.prompts import PromptTexts, build_request, with_language_hints
from fcbench.models.tools import convert_tools
from fcbench.runner.generate import Guard, Solver

__all__ = [
    "Conversation",
    "Environment",
    "Step",
    "Stepper",
    "is_multi_turn",
    "multi_turn_solver",
    "run_conversation",
]

DEFAULT_STEP_LIMIT = 20


@dataclass
class Step:
    """One model answer within a turn."""

    result: Any
    """The stored raw output: text, or `[{name: arguments_json}]` in FC mode."""
    message: dict[str, Any] | None = None
    """The assistant message to put back into the history (None: built from `result`)."""
    tool_call_ids: list[str] = field(default_factory=list)
    input_tokens: int | None = 0
    output_tokens: int | None = 0
    latency: float = 0.0
    reasoning: str = ""


Stepper = Callable[[ChatRequest, int, int], Awaitable[Step]]
"""Asks the model one step (request, turn index, step index): one attempt, the guard retries."""


def is_multi_turn(case: TestCase) -> bool:
    """A case of a multi-turn category (the ones with stateful environments)."""
    from fcbench.dataset import categories

    try:
        return categories.get(case.category).checker == Checker.MULTI_TURN
    except categories.UnknownCategoryError:
        return "involved_classes" in case.extras and case.category.startswith("multi_turn")


# --------------------------------------------------------------------------- environment


class Environment:
    """The case's instances for inference (their own namespace, state kept across turns)."""

    def __init__(self, case: TestCase, model_name: str) -> None:
        config: dict[str, Any] = case.extras.get("initial_config") or {}
        long_context = is_long_context(case.id)
        self.instances: dict[str, object] = {}
        labels: dict[str, str] = {}
        for class_name in case.extras.get("involved_classes") or []:
            instance = load_class(class_name)()
            if class_name not in STATELESS_CLASSES:
                instance._load_scenario(deep_copy(config.get(class_name, {})),
                                        long_context=long_context)
            self.instances[class_name] = instance
            labels[class_name] = instance_label(model_name, case.id, class_name)
        self.dispatcher = Dispatcher(self.instances, labels)

    def execute(self, calls: list[str]) -> list[str]:
        return self.dispatcher.execute(calls)

    def state_log(self) -> list[dict[str, Any]]:
        """Snapshots of the stateful instances' public attributes (copied, JSON-safe)."""
        log = []
        for class_name, instance in self.instances.items():
            if class_name in STATELESS_CLASSES:
                continue
            state = {k: v for k, v in vars(instance).items() if not k.startswith("_")}
            log.append({"role": "state_info", "class_name": class_name,
                        "content": json.loads(json.dumps(json_safe(state), ensure_ascii=False))})
        return log


# --------------------------------------------------------------------------- conversation


class Conversation:
    """The messages (and FC tools) sent at each step, grown the official way."""

    def __init__(self, case: TestCase, mode: Mode, texts: PromptTexts) -> None:
        self.mode = mode
        self.texts = texts
        first = build_request(case, mode, texts)  # turn 0 as single-turn sends it
        self.first_turn = first.messages
        self.messages: list[dict[str, Any]] = []
        self.functions = with_language_hints(case.functions, _language(case))
        self.tools = first.tools

    def request(self) -> ChatRequest:
        return ChatRequest(list(self.messages), self.tools)

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

    def add_assistant(self, step: Step) -> None:
        message = step.message
        if message is None:
            content = step.result if isinstance(step.result, str) else str(step.result)
            message = {"role": "assistant", "content": content}
        self.messages.append(message)

    def add_results(self, step: Step, calls: list[str], results: list[str]) -> None:
        if self.mode == "fc":
            # zip truncates like upstream: calls parsed from text have no ids to answer
            for result, call_id in zip(results, step.tool_call_ids, strict=False):
                self.messages.append({"role": "tool", "content": result, "tool_call_id": call_id})
            return
        pairs = zip(results, calls, strict=True)
        rows = [{"role": "tool", "name": call, "content": result} for result, call in pairs]
        self.messages.append({"role": "user", "content": repr(rows)})


def _language(case: TestCase) -> Any:
    from fcbench.models.prompts import language_of

    return language_of(case)


# --------------------------------------------------------------------------- the loop


@dataclass
class _Record:
    """What the loop collects for the result entry (one inner list per turn)."""

    result: list[list[Any]] = field(default_factory=list)
    input_tokens: list[list[Any]] = field(default_factory=list)
    output_tokens: list[list[Any]] = field(default_factory=list)
    latency: list[list[float]] = field(default_factory=list)
    reasoning: list[list[str]] = field(default_factory=list)
    log: list[Any] = field(default_factory=list)
    attempts: int = 0
    force_quit: bool = False

    def start_turn(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """Open a turn; returns its log (`begin_of_turn_query`, then `step_N` lists)."""
        for lists in (self.result, self.input_tokens, self.output_tokens, self.latency,
                      self.reasoning):
            lists.append([])
        turn_log: dict[str, Any] = {"begin_of_turn_query": plain_copy(messages)}
        self.log.append(turn_log)
        return turn_log

    def add_step(self, step: Step, attempts: int) -> dict[str, Any]:
        """Record one answer; returns its `assistant` log entry."""
        self.attempts += attempts
        self.result[-1].append(step.result)
        self.input_tokens[-1].append(step.input_tokens)
        self.output_tokens[-1].append(step.output_tokens)
        self.latency[-1].append(step.latency)
        self.reasoning[-1].append(step.reasoning)
        entry: dict[str, Any] = {"role": "assistant", "content": step.result}
        if step.reasoning:
            entry["reasoning_content"] = step.reasoning
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
        return Response(
            result=self.result,
            input_tokens=sum(n or 0 for turn in self.input_tokens for n in turn),
            output_tokens=sum(n or 0 for turn in self.output_tokens for n in turn),
            latency=sum(x for turn in self.latency for x in turn),
            finish_reason="force_quit" if self.force_quit else "stop",
            extras=extras,
        )


@dataclass
class LoopSettings:
    """How a conversation is run."""

    mode: Mode
    texts: PromptTexts
    model_name: str = "fcbench"
    step_limit: int = DEFAULT_STEP_LIMIT
    state_log: bool = True


async def run_conversation(
    case: TestCase, stepper: Stepper, guard: Guard, settings: LoopSettings
) -> tuple[Response, int]:
    """Every turn of one case; (the entry's response, attempts over all steps)."""
    loop = _Loop(case, stepper, guard, settings)
    holdout: dict[str, list[dict[str, Any]]] = case.extras.get("missed_function") or {}
    loop.log_state()
    for turn, messages in enumerate(case.question):
        if str(turn) in holdout:
            messages = loop.conversation.holdout_message(holdout[str(turn)])
        await loop.run_turn(turn, loop.conversation.begin_turn(turn, messages))
        loop.log_state()
        if loop.record.force_quit:
            break
    return loop.record.response(), loop.record.attempts


class _Loop:
    """One case's conversation: its environment, messages, model and record."""

    def __init__(
        self, case: TestCase, stepper: Stepper, guard: Guard, settings: LoopSettings
    ) -> None:
        self.env = Environment(case, settings.model_name)
        self.conversation = Conversation(case, settings.mode, settings.texts)
        self.encoding = _encoding(settings.mode)
        self.stepper = stepper
        self.guard = guard
        self.settings = settings
        self.record = _Record()

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
        request = self.conversation.request()
        step, attempts = await self.guard.call(_bind(self.stepper, request, turn, count))
        self.conversation.add_assistant(step)
        step_log.append(self.record.add_step(step, attempts))
        calls = _decode(step.result, self.encoding, step_log)
        if calls is None:
            return False
        results = self.env.execute(calls)
        self.conversation.add_results(step, calls, results)
        step_log.extend({"role": "tool", "content": r} for r in results)
        return True


def _bind(
    stepper: Stepper, request: ChatRequest, turn: int, step: int
) -> Callable[[], Awaitable[Step]]:
    def call() -> Awaitable[Step]:
        return stepper(request, turn, step)

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


def _encoding(mode: Mode) -> Encoding:
    if mode == "fc":
        return Encoding("fc", "underscore", "json_string")
    return Encoding()


# --------------------------------------------------------------------------- steppers


def openai_stepper(backend: Any, mode: Mode) -> Stepper:
    """Steps through an `OpenAICompatBackend` (its `complete` and `parse`)."""

    async def step(request: ChatRequest, turn: int, index: int) -> Step:
        body, latency, url = await backend.complete(request)
        response: Response = backend.parse(body, mode, latency, url)
        message = dict(body["choices"][0]["message"])
        calls = message.get("tool_calls") if mode == "fc" else None
        ids = [str(c.get("id")) for c in calls] if isinstance(calls, list) else []
        reasoning = response.extras.get("reasoning_content") or ""
        return Step(response.result, message, ids, response.input_tokens,
                    response.output_tokens, latency, str(reasoning))

    return step


def ground_truth_stepper(case: TestCase, mode: Mode) -> Stepper:
    """The case's ground truth as the model: each turn's calls in one step, then a step
    without calls that ends the turn (an empty ground-truth turn is just that last step)."""
    methods = _signatures(case.extras.get("involved_classes") or [])
    truth: list[list[str]] = case.possible_answer or []

    async def step(request: ChatRequest, turn: int, index: int) -> Step:
        calls = truth[turn] if index == 0 and turn < len(truth) else []
        parsed = [_parse_call(text, methods) for text in calls]
        if mode == "fc":
            result: Any = [{name: json.dumps(args)} for name, args in parsed] if parsed else ""
            ids = [f"call_{turn}_{index}_{i}" for i in range(len(parsed))]
            return Step(result, None, ids)
        text = ", ".join(f"{n}({', '.join(f'{k}={v!r}' for k, v in a.items())})"
                         for n, a in parsed)
        return Step(f"[{text}]" if parsed else "", None, [])

    return step


def _signatures(classes: list[str]) -> dict[str, list[str]]:
    """Method name -> parameter names (the later class wins a shared name, as dispatch)."""
    names: dict[str, list[str]] = {}
    for class_name in classes:
        cls = load_class(class_name)
        for name, member in inspect.getmembers(cls, inspect.isfunction):
            if not name.startswith("_"):
                params = list(inspect.signature(member).parameters)[1:]
                names[name] = params
    return names


def _parse_call(text: str, methods: dict[str, list[str]]) -> tuple[str, dict[str, Any]]:
    """`name(a, k=v)` of the dataset -> (name, keyword arguments); positional arguments get
    their parameter names from the environment method's signature."""
    node = ast.parse(text.strip(), mode="eval").body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError(f"not a plain call: {text!r}")
    name = node.func.id
    params = methods.get(name, [])
    args: dict[str, Any] = {}
    for position, arg in enumerate(node.args):
        args[params[position] if position < len(params) else f"arg{position}"] = (
            ast.literal_eval(arg)
        )
    for keyword in node.keywords:
        args[str(keyword.arg)] = ast.literal_eval(keyword.value)
    return name, args


# --------------------------------------------------------------------------- the solver


def multi_turn_solver(
    single: Solver,
    settings: LoopSettings,
    stepper_for: Callable[[TestCase], Stepper],
) -> Solver:
    """Multi-turn cases go through the loop; every other case to `single`."""

    async def solve(case: TestCase, guard: Guard) -> tuple[Response, int]:
        if not is_multi_turn(case):
            return await single(case, guard)
        return await run_conversation(case, stepper_for(case), guard, settings)

    return solve


def step_limit(texts: PromptTexts) -> int:
    """The release's `MAXIMUM_STEP_LIMIT` (20 when absent)."""
    value = texts.prompts.get("MAXIMUM_STEP_LIMIT", DEFAULT_STEP_LIMIT)
    return value if isinstance(value, int) else DEFAULT_STEP_LIMIT


def solver_for(backend: Any, mode: Mode, texts: PromptTexts, model_name: str) -> Solver:
    """The runner's solver for a backend: ground truth replays, OpenAI-compatible steps."""
    from fcbench.models.ground_truth import GroundTruthBackend
    from fcbench.runner.generate import single_turn_solver

    settings = LoopSettings(mode, texts, model_name, step_limit(texts))
    single = single_turn_solver(backend, mode)
    if isinstance(backend, GroundTruthBackend):
        return multi_turn_solver(single, settings, lambda case: ground_truth_stepper(case, mode))
    from fcbench.models.openai_compat import OpenAICompatBackend

    if not isinstance(backend, OpenAICompatBackend):
        raise ValueError(f"multi-turn generation is not supported for backend {backend.name!r}")
    stepper = openai_stepper(backend, mode)
    return multi_turn_solver(single, settings, lambda case: stepper)
