"""A local Hugging Face transformers model (optional extra: `transformers`, `torch`).

The model and its tokenizer load from a local folder, or from one GGUF file that transformers
dequantizes (`--model-path model.gguf`; needs the `gguf` and `accelerate` packages of the
`hf` extra); nothing is downloaded by fcbench. Each case is rendered with the tokenizer's
chat template: FC mode passes the converted docs as the template's `tools` (the template must
take them), prompt mode sends the benchmark's system prompt in the messages, exactly as the
other backends do.

Generation, as the official OSS handler sizes it (spec §4.5): at most
`min(4096, context - prompt - 2)` new tokens, where the context is the config's
`max_position_embeddings` (else the tokenizer's `model_max_length`); `--max-tokens` lowers that
cap. A prompt that leaves fewer than one token is a permanent error of that case. Temperatures
below `GREEDY_BELOW` (the benchmark's default 0.001 included) decode greedily, higher ones
sample (with `top_p` when set); `extra_body` is passed to `generate` (e.g. `{"top_k": 20}`).

Cases in flight are generated together: up to `batch_size` prompts (left-padded) per
`generate` call, run in a worker thread so the event loop stays responsive; each row stops at
its own token budget, so batching does not change what a row may generate. A case's latency
is the time from its batch's start until its own row ended (EOS or budget), not the whole
batch's time, which would give every case of a batch the slowest row's latency; its token
counts are its own row's.

Ctrl-C: each batch runs in a daemon thread of its own (not the event loop's executor, which
the interpreter waits for on the way out) and carries a stop flag that the stopping criteria
read between tokens. The run's end (`aclose`, reached when the first Ctrl-C cancels the run)
raises the flag, so the batch in flight ends at its next token and is abandoned (its cases
were not written; resume asks them) instead of generating on for minutes. While a batch runs,
`activity()` says how many rows, tokens so far and seconds, for the progress display.

Loading progress bars (weights, GGUF dequantization) are drawn only on a terminal: in a log
they are thousands of carriage-return updates.

A GGUF file is parsed once per backend: transformers reads it for the tokenizer, again for the
config and a third time for the weights, and maps every module's tensor names by building the
same name table once per module. While fcbench loads, `GgufParseCache` shares one reader, one
metadata parse and one name table among those calls (SmolLM2-135M Q4_1: 47 s of CPU to load
before, 22 s after, on a loaded 2-core machine); nothing read changes.

Stored results: the text in prompt mode; in FC mode the text parsed by the `--tool-call-format`
parser into `[{name: arguments_json}]` (the raw text kept as `raw_text`), or the text itself
when it holds no call.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fcbench.decode.tool_call_formats import as_tool_calls, parse_text_calls
from fcbench.models.base import (
    OSS_MAX_TOKENS,
    ChatRequest,
    FcArgs,
    Mode,
    PermanentError,
    Reply,
    TransientError,
    public_fields,
)
from fcbench.models.exchange import RawReply, RawStore, exchanged
from fcbench.models.limits import over_budget
from fcbench.models.openai_compat import Sampling

if TYPE_CHECKING:
    from fcbench.models.registry import BackendOptions

MAX_NEW_TOKENS = OSS_MAX_TOKENS
"""The official cap on the tokens requested from a local model."""

GREEDY_BELOW = 0.01
"""Temperatures below this decode greedily (sampling at 0.001 is greedy in all but name)."""

STOP_WAIT = 15.0
"""Seconds `aclose` waits for a stopped batch to reach its next token (one forward pass: a
long prompt's prefill on a CPU can take a few seconds); past it the batch's daemon thread is
left behind and the run ends anyway."""

THREAD_NAME = "fcbench-generate"
"""The name of a batch's thread (the CLI exits at once on a second Ctrl-C while one lives)."""


class GenerationStopped(TransientError):
    """The batch was stopped between tokens (the run is ending): its rows are unfinished."""


@dataclass
class LiveBatch:
    """The batch being generated, as the progress display reads it from the event loop while
    the batch's thread writes it (plain attribute updates); `stop` is read between tokens."""

    rows: int
    started: float
    tokens: int = 0
    stop: threading.Event = field(default_factory=threading.Event)

    def describe(self, now: float) -> str:
        """`generating 4 case(s): 312 token(s) so far, 41 s`."""
        return (f"generating {self.rows} case(s): {self.tokens} token(s) so far, "
                f"{now - self.started:.0f} s")


def token_budget(context: int, prompt_tokens: int, cap: int | None = None) -> int:
    """New tokens allowed: min(4096, context - prompt - 2), lowered to `cap` when given."""
    budget = min(MAX_NEW_TOKENS, context - prompt_tokens - 2)
    return min(budget, cap) if cap is not None else budget


def template_takes_tools(template: Any) -> bool:
    """Whether a chat template (a string, or a dict of named templates) reads `tools`."""
    if isinstance(template, dict):
        return any(template_takes_tools(t) for t in template.values())
    return isinstance(template, str) and "tools" in template


@dataclass(frozen=True)
class RowOutput:
    """One row of a batched generation: its new tokens (up to EOS), whether EOS came, and the
    seconds from the batch's start until the row ended."""

    tokens: list[int]
    stopped: bool
    seconds: float


@dataclass
class _Item:
    """One prompt waiting for the batch worker."""

    ids: list[int]
    budget: int
    future: asyncio.Future[RowOutput] = field(repr=False)


def weights_source(model_path: Path) -> tuple[Path, dict[str, Any]]:
    """(folder, extra `from_pretrained` arguments): a folder as it is; a `.gguf` file as its
    folder and `gguf_file` (transformers reads the tokenizer, config and weights from it)."""
    if model_path.suffix == ".gguf":
        return model_path.parent, {"gguf_file": model_path.name}
    return model_path, {}


@contextlib.contextmanager
def quiet_loading() -> Iterator[None]:
    """Loading progress bars off unless stderr is a terminal. transformers' own switch covers
    its weight and download bars; its GGUF dequantization bar is a bare `tqdm`, silenced for
    the duration of the load."""
    if sys.stderr.isatty():
        yield
        return
    import functools
    import importlib

    # untyped at run time: reached as plain modules
    gguf_utils: Any = importlib.import_module("transformers.modeling_gguf_pytorch_utils")
    hf_logging: Any = importlib.import_module("transformers.utils.logging")

    enabled = hf_logging.is_progress_bar_enabled()
    bar = getattr(gguf_utils, "tqdm", None)
    hf_logging.disable_progress_bar()
    if bar is not None:
        gguf_utils.tqdm = functools.partial(bar, disable=True)
    try:
        yield
    finally:
        if bar is not None:
            gguf_utils.tqdm = bar
        if enabled:
            hf_logging.enable_progress_bar()


class GgufParseCache:
    """What transformers would parse again from the same GGUF file, kept between the tokenizer
    and model loads of one backend (dropped once the model is loaded: the reader maps the file).

    Entered around each load, it swaps in memoizing versions of `gguf.GGUFReader`,
    `gguf.get_tensor_name_map` and transformers' metadata-only `load_gguf_checkpoint` (the
    callers import them at call time, so the swap reaches them), and restores the originals on
    leaving. Metadata results are handed out as deep copies: callers may edit what they get."""

    def __init__(self) -> None:
        self.readers: dict[tuple[str, str], Any] = {}
        self.metadata: dict[str, Any] = {}
        self.name_maps: dict[tuple[Any, ...], Any] = {}

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        import importlib

        # untyped at run time: reached as plain modules
        gguf: Any = importlib.import_module("gguf")
        gguf_utils: Any = importlib.import_module("transformers.modeling_gguf_pytorch_utils")
        originals = (gguf.GGUFReader, gguf.get_tensor_name_map, gguf_utils.load_gguf_checkpoint)
        gguf.GGUFReader = self._reader(originals[0])
        gguf.get_tensor_name_map = self._name_map(originals[1])
        gguf_utils.load_gguf_checkpoint = self._checkpoint(originals[2])
        try:
            yield
        finally:
            gguf.GGUFReader, gguf.get_tensor_name_map, gguf_utils.load_gguf_checkpoint = originals

    def _reader(self, make: Any) -> Any:
        def reader(path: Any, mode: str = "r") -> Any:
            key = (str(Path(path).resolve()), mode)
            if key not in self.readers:
                self.readers[key] = make(path, mode)
            return self.readers[key]

        return reader

    def _name_map(self, make: Any) -> Any:
        def name_map(*args: Any) -> Any:
            if args not in self.name_maps:
                self.name_maps[args] = make(*args)
            return self.name_maps[args]

        return name_map

    def _checkpoint(self, load: Any) -> Any:
        import copy

        def checkpoint(path: Any, return_tensors: bool = False, **kwargs: Any) -> Any:
            if return_tensors or kwargs:
                return load(path, return_tensors=return_tensors, **kwargs)
            key = str(Path(path).resolve())
            if key not in self.metadata:
                self.metadata[key] = load(path, return_tensors=False)
            return copy.deepcopy(self.metadata[key])

        return checkpoint


class HFLocalBackend:
    """A transformers causal LM from a local folder, batched."""

    fc_args: FcArgs = "json_string"
    raw_store: RawStore | None = None
    """Where generations are kept as produced (the response cache), None: always run."""

    def __init__(
        self,
        model_path: Path | str,
        *,
        name: str | None = None,
        sampling: Sampling | None = None,
        output_format: str | None = None,
        batch_size: int = 8,
        device: str | None = None,
    ) -> None:
        self.model_path = Path(model_path)
        self.name = name or self.model_path.name
        self.sampling = sampling or Sampling()
        self.output_format = output_format
        self.batch_size = max(1, batch_size)
        self.device = device
        self._tokenizer: Any = None
        self._model: Any = None
        self._context = 0
        self._gguf_cache: GgufParseCache | None = (
            GgufParseCache() if self.model_path.suffix == ".gguf" else None)
        self._queue: asyncio.Queue[_Item] | None = None
        self._worker: asyncio.Task[None] | None = None
        self._live: LiveBatch | None = None
        self._thread: threading.Thread | None = None

    def describe(self) -> dict[str, Any]:
        return {
            "backend": "hf",
            "endpoints": [str(self.model_path)],
            "sampling": self.sampling.describe(),
            "output_format": self.output_format,
            "batch_size": self.batch_size,
            "device": self.device or "auto",
        }

    # ------------------------------------------------------------------ loading

    def tokenizer(self) -> Any:
        """The tokenizer (loaded once, left padding, a pad token)."""
        if self._tokenizer is None:
            from transformers import AutoTokenizer

            folder, extra = weights_source(self.model_path)
            with quiet_loading(), self._parsed_once():
                tokenizer = AutoTokenizer.from_pretrained(str(folder), **extra)
            tokenizer.padding_side = "left"
            if tokenizer.pad_token_id is None:
                tokenizer.pad_token = tokenizer.eos_token
            self._tokenizer = tokenizer
        return self._tokenizer

    def check(self, mode: Mode) -> None:
        """Refuse a setup that cannot work (raises ValueError with the reason)."""
        template = getattr(self.tokenizer(), "chat_template", None)
        if not template:
            raise ValueError(f"{self.model_path}: the tokenizer has no chat template")
        if mode == "fc" and not template_takes_tools(template):
            raise ValueError(
                f"{self.model_path}: the chat template does not take tools; use --mode prompt"
            )

    def load(self) -> None:
        """The model on its device, and the context length (as the official handler reads it:
        the config's, read from the loaded model so that a GGUF file is parsed once less)."""
        if self._model is not None:
            return
        import torch
        from transformers import AutoModelForCausalLM

        tokenizer = self.tokenizer()
        if self.device is None:
            self.device = "cuda" if torch.cuda.is_available() else "cpu"
        folder, extra = weights_source(self.model_path)
        with quiet_loading(), self._parsed_once():
            model: Any = AutoModelForCausalLM.from_pretrained(str(folder), **extra)
        self._gguf_cache = None  # loaded: nothing left to share, and the file is unmapped
        context = getattr(model.config, "max_position_embeddings", None)
        if context is None:
            context = tokenizer.model_max_length
        self._context = int(context)
        model.to(self.device)
        model.eval()
        self._model = model

    def _parsed_once(self) -> contextlib.AbstractContextManager[None]:
        """The GGUF parse cache while loading from a GGUF file; nothing otherwise."""
        if self._gguf_cache is None:
            return contextlib.nullcontext()
        return self._gguf_cache.active()

    @property
    def context(self) -> int:
        self.load()
        return self._context

    # ------------------------------------------------------------------ prompts

    def render(self, request: ChatRequest) -> str:
        """The prompt text: the chat template applied, tools passed in FC mode."""
        tokenizer = self.tokenizer()
        try:
            text = tokenizer.apply_chat_template(
                [public_fields(m) for m in request.messages],
                tools=request.tools if request.mode == "fc" else None,
                tokenize=False,
                add_generation_prompt=True,
            )
        except Exception as exc:  # a template that refuses these messages
            raise PermanentError(f"chat template failed: {type(exc).__name__}: {exc}",
                                 final=True) from None
        return str(text)

    def encode(self, prompt: str) -> list[int]:
        ids = self.tokenizer()(prompt, add_special_tokens=False)["input_ids"]
        return [int(i) for i in ids]

    # ------------------------------------------------------------------ answering

    def use_raw_store(self, store: RawStore | None) -> None:
        """Keep generations (text and token counts) by the prompt rendered and the settings
        that decide them (`models.exchange`); `--tool-call-format` reads every one."""
        self.raw_store = store

    async def step(self, request: ChatRequest) -> Reply:
        prompt = self.render(request)
        sent = {"model": str(self.model_path), "device": self.device or "auto",
                "prompt": prompt, "sampling": self.sampling.describe()}
        raw = await exchanged(self.raw_store, sent, lambda: self._generate(prompt))
        try:
            made = json.loads(raw.body)
            text = str(made["text"])
            response = Reply(
                result=text, input_tokens=made["input_tokens"],
                output_tokens=made["output_tokens"], latency=raw.latency,
                finish_reason="stop" if made["stopped"] else "length",
                endpoint=str(self.model_path))
        except (ValueError, KeyError, TypeError):
            raise TransientError("malformed kept generation") from None
        refused = over_budget(text) if request.mode == "fc" and self.output_format else None
        if refused is not None:
            response.extras["over_budget"] = refused
        elif request.mode == "fc" and self.output_format:
            parsed = parse_text_calls(self.output_format, text)
            if parsed is not None:
                response.extras["raw_text"] = text
                response.result = parsed
                response.message, response.tool_call_ids = as_tool_calls(parsed)
        return response

    async def _generate(self, prompt: str) -> RawReply:
        """One generation (the weights loaded on first use): its text, token counts and
        whether it stopped by itself, as JSON."""
        self.load()
        ids = self.encode(prompt)
        budget = token_budget(self._context, len(ids), self.sampling.max_tokens)
        if budget < 1:
            raise PermanentError(  # the same case measures the same every time
                f"the prompt ({len(ids)} tokens) leaves no room in the context ({self._context})",
                final=True,
            )
        row = await self._submit(ids, budget)
        text = str(self.tokenizer().decode(row.tokens, skip_special_tokens=True))
        made = {"text": text, "input_tokens": len(ids), "output_tokens": len(row.tokens),
                "stopped": bool(row.stopped)}
        return RawReply(json.dumps(made, ensure_ascii=False), row.seconds,
                        str(self.model_path))

    async def _submit(self, ids: list[int], budget: int) -> RowOutput:
        if self._queue is None or self._worker is None or self._worker.done():
            self._queue = asyncio.Queue()
            self._worker = asyncio.get_running_loop().create_task(self._run(self._queue))
        future: asyncio.Future[RowOutput] = asyncio.get_running_loop().create_future()
        await self._queue.put(_Item(ids, budget, future))
        return await future

    async def _run(self, queue: asyncio.Queue[_Item]) -> None:
        """The batch worker: takes what is waiting (up to batch_size), generates, answers."""
        while True:
            batch = [await queue.get()]
            for _ in range(20):  # let the other cases in flight join this batch
                if len(batch) + queue.qsize() >= self.batch_size:
                    break
                await asyncio.sleep(0)
            while len(batch) < self.batch_size and not queue.empty():
                batch.append(queue.get_nowait())
            try:
                outputs = await self._in_thread([i.ids for i in batch],
                                                [i.budget for i in batch])
            except asyncio.CancelledError:  # the run ends: nobody is left waiting for a row
                for item in batch:
                    item.future.cancel()
                raise
            except Exception as exc:
                error = TransientError(f"generation failed: {type(exc).__name__}: {exc}")
                for item in batch:
                    if not item.future.done():
                        item.future.set_exception(error)
                continue
            for item, output in zip(batch, outputs, strict=True):
                if not item.future.done():
                    item.future.set_result(output)

    async def _in_thread(self, prompts: list[list[int]], budgets: list[int]) -> list[RowOutput]:
        """`generate` in a daemon thread of its own, with a fresh stop flag (`halt`)."""
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[list[RowOutput]] = loop.create_future()
        live = LiveBatch(len(prompts), time.perf_counter())

        def work() -> None:
            try:
                outputs: list[RowOutput] | None = self.generate(prompts, budgets, live=live)
                failure: BaseException | None = None
            except BaseException as exc:  # handed to the loop, raised there
                outputs, failure = None, exc
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                loop.call_soon_threadsafe(_settle, answer, outputs, failure)

        self._live = live
        self._thread = threading.Thread(target=work, name=THREAD_NAME, daemon=True)
        self._thread.start()
        try:
            return await answer
        finally:
            self._live = None

    def activity(self) -> str | None:
        """What the batch in flight has done so far (None between batches)."""
        live = self._live
        return live.describe(time.perf_counter()) if live is not None else None

    def halt(self) -> None:
        """Stop the batch in flight at its next token (its rows are abandoned)."""
        live = self._live
        if live is not None:
            live.stop.set()

    def generate(self, prompts: list[list[int]], budgets: list[int], *,
                 live: LiveBatch | None = None) -> list[RowOutput]:
        """One batched `generate`: per row, the new tokens (up to EOS), whether EOS came and
        when the row ended. With `live`, tokens are counted into it as they come and its stop
        flag ends every row at the next token (GenerationStopped: the rows are unfinished)."""
        import torch
        from transformers import StoppingCriteria, StoppingCriteriaList

        tokenizer = self.tokenizer()
        eos = _eos_ids(tokenizer, self._model)
        started = time.perf_counter()
        watch = live or LiveBatch(len(prompts), started)
        ended: dict[int, float] = {}
        pad = int(tokenizer.pad_token_id)
        width = max(len(p) for p in prompts)
        input_ids = torch.full((len(prompts), width), pad, dtype=torch.long)
        mask = torch.zeros((len(prompts), width), dtype=torch.long)
        for row, ids in enumerate(prompts):
            if ids:
                input_ids[row, width - len(ids):] = torch.tensor(ids, dtype=torch.long)
                mask[row, width - len(ids):] = 1
        limits = torch.tensor(budgets, dtype=torch.long, device=self.device)

        class RowBudget(StoppingCriteria):  # type: ignore[misc,unused-ignore]
            """Each row stops at its own budget (rows with a larger budget go on); notes when
            each row ended (its budget reached, or EOS generated)."""

            def __call__(self, ids: Any, scores: Any, **kwargs: Any) -> Any:
                watch.tokens += len(prompts) - len(ended)
                if watch.stop.is_set():
                    return torch.ones_like(limits, dtype=torch.bool)
                done = (ids.shape[1] - width) >= limits
                now = time.perf_counter()
                last = ids[:, -1].tolist()
                for row, finished in enumerate(done.tolist()):
                    if row not in ended and (finished or int(last[row]) in eos):
                        ended[row] = now
                return done

        kwargs: dict[str, Any] = {
            "max_new_tokens": max(budgets),
            "stopping_criteria": StoppingCriteriaList([RowBudget()]),
            "pad_token_id": pad,
        }
        temperature = self.sampling.temperature
        if temperature is None or temperature < GREEDY_BELOW:
            kwargs["do_sample"] = False
        else:
            kwargs.update(do_sample=True, temperature=temperature)
            if self.sampling.top_p is not None:
                kwargs["top_p"] = self.sampling.top_p
        kwargs.update(self.sampling.extra_body)
        if self.sampling.seed is not None:  # each batch draws from the seed's own stream
            torch.manual_seed(self.sampling.seed)
        with torch.inference_mode():
            out = self._model.generate(
                input_ids=input_ids.to(self.device), attention_mask=mask.to(self.device),
                **kwargs,
            )
        if watch.stop.is_set():
            raise GenerationStopped("generation stopped: the run is ending")
        finished = time.perf_counter()
        results: list[RowOutput] = []
        for row, budget in enumerate(budgets):
            new = [int(t) for t in out[row, width:].tolist()][:budget]
            stop = next((i for i, t in enumerate(new) if t in eos), None)
            seconds = ended.get(row, finished) - started
            results.append(RowOutput(new[: stop + 1], True, seconds) if stop is not None
                           else RowOutput(new, False, seconds))
        return results

    async def aclose(self) -> None:
        """End the run: the batch in flight stopped at its next token, the worker cancelled,
        and the batch's thread given `STOP_WAIT` seconds to return."""
        self.halt()
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._worker
        while self._queue is not None and not self._queue.empty():
            self._queue.get_nowait().future.cancel()
        self._worker = None
        self._queue = None
        thread, deadline = self._thread, time.monotonic() + STOP_WAIT
        while thread is not None and thread.is_alive() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        self._thread = None


def _settle(answer: asyncio.Future[list[RowOutput]], outputs: list[RowOutput] | None,
            failure: BaseException | None) -> None:
    """Hand a batch thread's outcome to its waiter (unless it gave up waiting)."""
    if answer.done():
        return
    if failure is not None:
        answer.set_exception(failure)
    else:
        answer.set_result(outputs or [])


def _eos_ids(tokenizer: Any, model: Any) -> set[int]:
    """The ids that end a generation: the tokenizer's EOS and the generation config's."""
    ids: set[int] = set()
    if tokenizer.eos_token_id is not None:
        ids.add(int(tokenizer.eos_token_id))
    configured = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
    if isinstance(configured, int):
        ids.add(configured)
    elif isinstance(configured, list):
        ids.update(int(i) for i in configured)
    return ids


def from_options(options: BackendOptions) -> HFLocalBackend:
    """A local model folder (`--model-path`, default the model name); FC mode needs a text
    parser, since a local model writes its calls as text."""
    from fcbench.decode.tool_call_formats import PARSERS
    from fcbench.models.registry import BackendSetupError

    path = options.model_path or Path(options.model)
    if not (path.is_dir() or (path.suffix == ".gguf" and path.is_file())):
        raise BackendSetupError(
            f"--backend hf: no model folder or .gguf file at {path} (pass --model-path)")
    if options.mode == "fc" and not options.tool_call_format:
        raise BackendSetupError(
            "--backend hf in FC mode needs --tool-call-format (how the model writes tool calls: "
            + ", ".join(PARSERS) + ")"
        )
    if options.tool_call_format and options.mode != "fc":
        raise BackendSetupError(
            "--tool-call-format applies to FC mode (tool calls written as text)")
    backend = HFLocalBackend(path, name=options.model, sampling=options.sampling,
                             output_format=options.tool_call_format,
                             batch_size=options.concurrency)
    try:
        backend.check(options.mode)
    except (OSError, ValueError) as exc:
        raise BackendSetupError(str(exc)) from None
    return backend
