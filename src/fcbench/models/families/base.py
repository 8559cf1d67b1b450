"""What a prompt family is: data plus the few small functions its official handler overrides.

An official local-inference handler (`bfcl_eval/model_handler/local_inference/*.py`) differs
from the others in at most these points, each a field here:

* `prepare` (`_pre_query_processing_prompting`): the turns as the model will see them, given
  the case and a maker of its first turn with the benchmark's system prompt (`prompted()`,
  built on demand). Most families
  either keep that (`benchmark_system_prompt`) or use their own system prompt and take the
  case's turns as they are (`own_system_prompt`);
* `render` (`_format_prompt`): the whole conversation so far (OpenAI-layout messages) and the
  function docs -> the one prompt string sent to `/v1/completions`;
* `parse` (`_parse_query_response_prompting` + `_add_assistant_message_prompting`): the
  completion text -> the stored result, the assistant message for the history, the
  reasoning, the ids of the calls (Mistral);
* `results` (`_add_execution_results_prompting`): the messages that feed a step's execution
  results back (by default one `tool` message per call, named by its call string);
* `extra_body`: the handler's `stop_token_ids` / `skip_special_tokens`;
* `decoder`: the name of its output decoders in `fcbench.decode.families`;
* `docs`: whether it renders the benchmark's docs or the docs converted to OpenAI tools.

Every function takes and returns plain data; none keeps state between calls. Where a handler
changes its own inputs while rendering (Hammer's function docs, MiniCPM-FC's messages), the
family recomputes the changed inputs from the history, so the same history always renders
the same prompt.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from fcbench.core.model import TestCase
from fcbench.models.base import plain_copy

Message = dict[str, Any]
Doc = dict[str, Any]


@dataclass
class Parsed:
    """One completion as the handler keeps it."""

    result: Any
    """What the result file stores (the text, cleaned text, or calls the handler built)."""
    message: Message
    """The assistant message appended to the conversation."""
    reasoning: str = ""
    tool_call_ids: list[str] = field(default_factory=list)


Prompted = Callable[[], list[Message]]
"""Makes the case's first turn with the benchmark's system prompt (on demand: the docs are
written into it, which costs time for families that never use it)."""


def benchmark_system_prompt(case: TestCase, prompted: Prompted) -> list[list[Message]]:
    """The benchmark's system prompt in the first turn (`system_prompt_pre_processing_chat_
    model`); later turns as they are."""
    return [prompted(), *plain_copy(case.question[1:])]


def own_system_prompt(case: TestCase, prompted: Prompted) -> list[list[Message]]:
    """The family brings its own system prompt: every turn as the data has it."""
    return plain_copy(case.question)  # type: ignore[no-any-return]


def plain_text(text: str) -> Parsed:
    """The base handler: the text is the result and the assistant message."""
    return Parsed(text, {"role": "assistant", "content": text})


def named_tool_messages(
    calls: list[str], results: list[str], tool_call_ids: list[str]
) -> list[Message]:
    """The base handler: one `tool` message per executed call, named by its call string."""
    return [{"role": "tool", "name": call, "content": result}
            for result, call in zip(results, calls, strict=False)]


@dataclass(frozen=True)
class Family:
    """One official prompt format (see the module docstring for each field)."""

    name: str
    handler: str
    """The official handler it reproduces (`module.py ClassName`)."""
    render: Callable[[list[Message], list[Doc]], str]
    prepare: Callable[[TestCase, Prompted], list[list[Message]]] = benchmark_system_prompt
    parse: Callable[[str], Parsed] = plain_text
    results: Callable[[list[str], list[str], list[str]], list[Message]] = named_tool_messages
    extra_body: Mapping[str, Any] = field(default_factory=dict)
    fc: bool = False
    """The official registry lists it under a `-FC` name (its result folder's suffix)."""
    fc_names: Literal["dot", "underscore"] = "dot"
    """`underscore` when the handler sends dotted names with underscores (the checker's
    `underscore_to_dot`)."""
    decoder: str | None = None
    """Its output decoders' name in `decode.families` (default: the family's name)."""
    requires: tuple[str, ...] = ()
    """Modules its prompt needs (from the pip extra `extra`)."""
    extra: str | None = None
    docs: Literal["benchmark", "openai"] = "benchmark"
    """What `render` is given: the benchmark's docs (with the language hints), or those docs
    converted to OpenAI tools (`convert_to_tool`: names with underscores, JSON-schema types)."""

    @property
    def decoder_name(self) -> str:
        return self.decoder or self.name


STEP_MARK = "_step"
"""fcbench's annotation on the assistant messages a family's `parse` made (one per model
step; the data's own assistant messages lack it)."""


def render_count(messages: list[Message]) -> int:
    """How many times the handler has rendered this conversation, this time included: once
    per model step, and every step left one marked assistant message."""
    return 1 + sum(1 for m in messages if m.get(STEP_MARK))


def counted_text(text: str) -> Parsed:
    """`plain_text`, its message marked as a step (for families that count renderings)."""
    parsed = plain_text(text)
    parsed.message[STEP_MARK] = True
    return parsed
