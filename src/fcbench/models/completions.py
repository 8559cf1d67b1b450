"""Open models asked the way the leaderboard asks them: one prompt string over `/v1/completions`.

The official local-inference handlers do not send chat requests: each renders the whole
conversation client-side with its family's template (`models.families`), sends the string
to the raw completions endpoint with the handler's settings (temperature, `max_tokens`, its
`stop_token_ids` / `skip_special_tokens`), and keeps the completion the handler's way (the
text, the text without its reasoning, or the calls it read). This backend does the same for
any family, so a model served by vLLM or SGLang scores as its leaderboard row was scored.

It is a `TurnLayout` too: the conversation loop asks it for a case's turns and for the
messages that feed execution results back (the family's), and decodes its steps with the
family's `decode_execute` (`output_encoding`).

`max_tokens`: the handlers ask for `min(4096, context - prompt - 2)` tokens, which needs the
model's tokenizer; fcbench asks for 4096 unless `--max-tokens` says otherwise (a prompt so
long that this overflows the context fails on the server, recorded on the case).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from fcbench.core.model import TestCase
from fcbench.decode.encoding import Encoding
from fcbench.models.base import (
    OSS_MAX_TOKENS,
    ChatRequest,
    FcArgs,
    PermanentError,
    Reply,
    Sampling,
    TransientError,
)
from fcbench.models.exchange import RawStore
from fcbench.models.families import Family, output_encoding
from fcbench.models.families.base import counted_text
from fcbench.models.limits import (
    DEFAULT_CONCURRENCY,
    DEFAULT_MAX_REPLY_BYTES,
    DEFAULT_TIMEOUT,
    over_budget,
)
from fcbench.models.openai_compat import OpenAICompatBackend

if TYPE_CHECKING:
    from fcbench.models.registry import BackendOptions

DEFAULT_MAX_TOKENS = OSS_MAX_TOKENS
"""The handlers' cap on new tokens."""


class CompletionsBackend:
    """One open model behind `/v1/completions`, prompted in one family's format."""

    fc_args: FcArgs = "json_string"

    def __init__(
        self,
        model: str,
        base_urls: Sequence[str],
        family: Family,
        *,
        served_as: str | None = None,
        chosen_by: str = "--prompt-format",
        api_key: str | None = None,
        sampling: Sampling | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        concurrency: int = DEFAULT_CONCURRENCY,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
    ) -> None:
        self.name = model
        self.family = family
        self.chosen_by = chosen_by
        self.sampling = sampling or Sampling()
        self.transport = OpenAICompatBackend(
            served_as or model, base_urls, api_key=api_key, sampling=self.sampling,
            timeout=timeout, concurrency=concurrency, max_reply_bytes=max_reply_bytes,
        )
        self.output_encoding: Encoding = output_encoding(family.name)

    # --- the conversation layout (TurnLayout) --------------------------------------------

    def turns(
        self, case: TestCase, prompted: Callable[[], list[dict[str, Any]]]
    ) -> list[list[dict[str, Any]]]:
        return self.family.prepare(case, prompted)

    def result_messages(
        self, reply: Reply, calls: list[str], results: list[str]
    ) -> list[dict[str, Any]]:
        return self.family.results(calls, results, reply.tool_call_ids)

    # --- one step ----------------------------------------------------------------------

    def use_raw_store(self, store: RawStore | None) -> None:
        """Keep completions as received (`models.exchange`), by the body sent: the family's
        parser reads every completion, kept or fresh."""
        self.transport.use_raw_store(store)

    def prompt(self, request: ChatRequest) -> str:
        """The prompt string the family's handler renders for this conversation."""
        docs = request.tools if self.family.docs == "openai" else request.functions
        return self.family.render(request.messages, docs or [])

    def body(self, request: ChatRequest) -> dict[str, Any]:
        """The `/v1/completions` request body."""
        try:
            prompt = self.prompt(request)
        except (Exception, RecursionError) as exc:  # a doc or message the template cannot take
            raise PermanentError(f"cannot render the {self.family.name} prompt: "
                                 f"{type(exc).__name__}: {exc}", final=True) from None
        body: dict[str, Any] = {"model": self.transport.model, "prompt": prompt,
                                "max_tokens": DEFAULT_MAX_TOKENS}
        body.update(self.family.extra_body)
        body.update(self.sampling.body_fields())
        return body

    async def step(self, request: ChatRequest) -> Reply:
        answer, latency, url = await self.transport.post("/completions", self.body(request))
        try:
            choice = answer["choices"][0]
            text = choice["text"]
        except (KeyError, IndexError, TypeError):
            raise TransientError("malformed response body (no completion text)") from None
        if not isinstance(text, str):
            raise TransientError("malformed response body (completion text is not a string)")
        return self.reply(text, answer.get("usage") or {}, latency, choice.get("finish_reason"),
                          url)

    def reply(
        self, text: str, usage: dict[str, Any], latency: float = 0.0,
        finish_reason: str | None = None, endpoint: str | None = None,
    ) -> Reply:
        """A completion as the family's handler keeps it; one past the decoding budget as it
        came, unread (`limits.over_budget`)."""
        refused = over_budget(text)
        if refused is not None:
            parsed = counted_text(text)
        else:
            try:
                parsed = self.family.parse(text)
            except (Exception, RecursionError) as exc:  # the handler fails on this text too
                raise PermanentError(f"the {self.family.name} handler cannot read the "
                                     f"completion: {type(exc).__name__}: {exc}") from None
        reply = Reply(
            result=parsed.result, message=parsed.message, tool_call_ids=parsed.tool_call_ids,
            input_tokens=usage.get("prompt_tokens"), output_tokens=usage.get("completion_tokens"),
            latency=latency, finish_reason=finish_reason, endpoint=endpoint,
            reasoning=parsed.reasoning,
        )
        if refused is not None:
            reply.extras["over_budget"] = refused
        return reply

    def describe(self) -> dict[str, Any]:
        return {
            "backend": "completions",
            "endpoints": self.transport.base_urls,
            "served_model": self.transport.model,
            "prompt_format": self.family.name,
            "prompt_format_chosen_by": self.chosen_by,
            "official_handler": self.family.handler,
            "sampling": self.sampling.describe(),
            "max_tokens": self.sampling.max_tokens or DEFAULT_MAX_TOKENS,
            "family_settings": dict(self.family.extra_body),
            "timeout": self.transport.timeout,
        }

    @property
    def run_name(self) -> str:
        """The result folder's model name: FC families get the official `-FC` suffix."""
        if self.family.fc and not self.name.endswith("-FC"):
            return self.name + "-FC"
        return self.name

    async def aclose(self) -> None:
        await self.transport.aclose()


def _check_requirements(family: Family) -> None:
    """A family whose prompt needs an extra says so in one line."""
    import importlib

    from fcbench.models.registry import BackendSetupError

    for module in family.requires:
        try:
            importlib.import_module(module)
        except ImportError:
            raise BackendSetupError(
                f"--prompt-format {family.name} needs {module}: "
                f"pip install 'fcbench[{family.extra}]'"
            ) from None


def from_options(options: BackendOptions) -> CompletionsBackend:
    """The registry's factory: the family from `--prompt-format`, else from the model name."""
    from fcbench.models import families
    from fcbench.models.registry import BackendSetupError
    from fcbench.models.urls import endpoint_urls

    urls = endpoint_urls(options.base_urls)
    if not urls:
        raise BackendSetupError("no endpoint: pass --base-url URL (or set OPENAI_BASE_URL)")
    if options.tool_call_format:
        raise BackendSetupError("--tool-call-format applies to the openai backend; the prompt "
                                "format decides how completions are read")
    name = options.prompt_format
    chosen_by = "--prompt-format"
    if name is None:
        name = families.family_for_model(options.model)
        chosen_by = f"the official model registry ({options.model})"
    if name is None:
        raise BackendSetupError(
            f"no prompt format for model {options.model!r}: pass --prompt-format "
            f"(one of {', '.join(families.names())})"
        )
    try:
        family = families.get(name)
    except families.UnknownPromptFormat as exc:
        raise BackendSetupError(str(exc)) from None
    _check_requirements(family)
    return CompletionsBackend(
        options.model, urls, family, served_as=families.served_name(options.model),
        chosen_by=chosen_by, api_key=options.api_key, sampling=options.sampling,
        timeout=options.timeout, concurrency=options.concurrency,
        max_reply_bytes=options.max_reply_bytes,
    )
