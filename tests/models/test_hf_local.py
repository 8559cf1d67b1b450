"""The local transformers backend (optional extra `hf`): a tiny Llama built here from a config
(random weights, a word-level tokenizer over a small vocabulary; nothing is downloaded) runs a
few cases end to end. Its answers are gibberish: what is checked is that the pipeline runs,
the results are stored in the right shape, and evaluation records the failures instead of
crashing."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fcbench.cli import main
from fcbench.models.hf_local import MAX_NEW_TOKENS, template_takes_tools, token_budget

CATEGORIES = {"simple_python": [0, 1, 2, 3, 4], "irrelevance": [0, 1, 2]}
TEMPLATE = (
    "{% if tools %}<s> system tools {{ tools | tojson }} </s> {% endif %}"
    "{% for m in messages %}{{ m.role }} {{ m.content }} </s> {% endfor %}"
    "{% if add_generation_prompt %}assistant {% endif %}"
)
WORDS = ["[PAD]", "[UNK]", "<s>", "</s>", "user", "assistant", "system", "tools",
         "<tool_call>", "</tool_call>", "[", "]", "(", ")", "=", ",", "{", "}",
         '"name":', '"arguments":', "calculate", "area", "the", "of", "a", "is", "what"]


def test_budget_is_the_official_one() -> None:
    assert token_budget(32768, 1000) == MAX_NEW_TOKENS == 4096
    assert token_budget(2048, 1000) == 2048 - 1000 - 2
    assert token_budget(2048, 1000, cap=16) == 16
    assert token_budget(1000, 999) < 1


def test_template_tools_detection() -> None:
    assert template_takes_tools(TEMPLATE)
    assert not template_takes_tools("{% for m in messages %}{{ m.content }}{% endfor %}")
    assert template_takes_tools({"default": "x", "tool_use": "{{ tools }}"})
    assert not template_takes_tools(None)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-layer Llama (hidden size 32) and its tokenizer, saved to a local folder."""
    torch = pytest.importorskip("torch", reason="the hf extra (torch) is not installed")
    transformers = pytest.importorskip(
        "transformers", reason="the hf extra (transformers) is not installed"
    )
    from tokenizers import Tokenizer, models, pre_tokenizers

    folder = tmp_path_factory.mktemp("tiny-llama")
    vocab = {word: i for i, word in enumerate(WORDS)}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=core, unk_token="[UNK]", pad_token="[PAD]", bos_token="<s>",
        eos_token="</s>",
    )
    tokenizer.chat_template = TEMPLATE
    tokenizer.save_pretrained(folder)
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=len(WORDS), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=16384,
        bos_token_id=2, eos_token_id=3, pad_token_id=0,
    )
    transformers.LlamaForCausalLM(config).save_pretrained(folder)
    return folder


def data_folder(tmp: Path, categories: dict[str, list[int]] = CATEGORIES) -> Path:
    """A `--data-dir` like the fetched release's data/ (files linked), the categories cut."""
    from fcbench.dataset.fetch import DEFAULT_RELEASE, release_dir

    source = release_dir(DEFAULT_RELEASE) / "data"
    folder = tmp / "data"
    folder.mkdir()
    cut = {f"{prefix}BFCL_v4_{name}.json": rows for name, rows in categories.items()
           for prefix in ("", "possible_answer/")}
    for path in sorted(source.rglob("*")):
        rel = path.relative_to(source).as_posix()
        target = folder / rel
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        elif rel in cut:
            lines = path.read_text(encoding="utf-8").splitlines()
            target.write_text("".join(lines[i] + "\n" for i in cut[rel]), encoding="utf-8")
        elif path.exists():
            target.symlink_to(path)
    return folder


def test_batching_does_not_change_a_row(tiny_model: Path) -> None:
    from fcbench.models.hf_local import HFLocalBackend

    backend = HFLocalBackend(tiny_model)
    backend.load()
    a, b = [2, 4, 20, 21, 3, 5], [2, 4, 24, 3, 5]
    alone = backend.generate([a], [9])
    batched = backend.generate([b, a], [4, 9])
    assert (batched[1].tokens, batched[1].stopped) == (alone[0].tokens, alone[0].stopped)
    assert len(batched[0].tokens) <= 4 and len(alone[0].tokens) <= 9


def test_each_row_of_a_batch_has_its_own_latency(tiny_model: Path) -> None:
    """Issue 25 item 6: a row that ends early is not given the whole batch's time."""
    from fcbench.models.hf_local import HFLocalBackend

    backend = HFLocalBackend(tiny_model)
    backend.load()
    eos = {backend.tokenizer().eos_token_id}
    short, long = backend.generate([[2, 4, 20, 21, 5], [2, 4, 24, 22, 5]], [1, 200])
    assert len(short.tokens) == 1
    if not long.stopped:  # the random model did not end the long row early by chance
        assert len(long.tokens) == 200 and not eos & set(long.tokens)
    assert 0 < short.seconds < long.seconds
    if len(long.tokens) > 20:
        assert short.seconds < long.seconds / 3


def test_a_prompt_beyond_the_context_is_a_permanent_error(
    fetched_home: Path, tiny_model: Path
) -> None:
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.dataset.load import load_category
    from fcbench.dataset.prompt_texts import load_texts
    from fcbench.models.base import PermanentError
    from fcbench.models.hf_local import HFLocalBackend
    from fcbench.models.prompts import build_request

    backend = HFLocalBackend(tiny_model)
    backend.load()
    backend._context = 20
    case = load_category("simple_python")[0]
    with pytest.raises(PermanentError, match="leaves no room") as raised:
        asyncio.run(backend.step(build_request(case, "prompt", load_texts(DEFAULT_RELEASE))))
    assert raised.value.final  # the same case measures the same: not asked again on resume


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_tiny_model_runs_end_to_end(
    fetched_home: Path, tiny_model: Path, tmp_path: Path, mode: str
) -> None:
    from fcbench.api import evaluate

    data = data_folder(tmp_path)
    name = f"tiny-{mode}"
    args = [
        "run", "--backend", "hf", "--model", "tiny", "--model-path", str(tiny_model),
        "--name", name, "--mode", mode, "--categories", ",".join(CATEGORIES),
        "--data-dir", str(data), "--result-dir", str(tmp_path / "result"),
        "--score-dir", str(tmp_path / "score"), "--max-tokens", "12", "--concurrency", "4",
        "--quiet",
    ]
    if mode == "fc":
        args += ["--tool-call-format", "hermes"]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    folder = tmp_path / "result" / name
    manifest = json.loads((folder / "model.json").read_text())
    assert manifest["backend"] == "hf" and manifest["mode"] == mode
    assert manifest["fc_args"] == ("json_string" if mode == "fc" else None)
    for category, rows in CATEGORIES.items():
        path = folder / "non_live" / f"BFCL_v4_{category}_result.json"
        entries = [json.loads(line) for line in path.read_text().splitlines()]
        assert [e["id"] for e in entries] == [f"{category}_{i}" for i in rows]
        for entry in entries:
            assert "error" not in entry, entry
            # gibberish: a text (no call found), or calls in the FC stored form
            assert isinstance(entry["result"], str) or all(
                isinstance(call, dict) and all(isinstance(v, str) for v in call.values())
                for call in entry["result"]
            )
            assert entry["input_token_count"] > 0
            assert 0 < entry["output_token_count"] <= 12
            assert entry["finish_reason"] in ("stop", "length")
    report = evaluate(tmp_path / "result", models=[name], categories=list(CATEGORIES),
                      data_dir=data)
    cases: dict[str, Any] = {
        c.id: c.verdict
        for e in report.models[name].categories.values() for c in e.cases
    }
    assert len(cases) == 8
    simple = [v for k, v in cases.items() if k.startswith("simple_python")]
    assert not any(v.valid for v in simple)  # random weights do not call the function
    assert all(v.error_type for v in simple)
    assert any(str(v.error_type).startswith("ast_decoder:") for v in simple)  # decode failures


def test_no_loading_progress_bars_without_a_terminal(
    tiny_model: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Issue 25 item 6: a log gets no weight-loading bar (stderr here is not a terminal),
    and transformers' switch is left as it was."""
    from transformers.utils import logging as hf_logging

    from fcbench.models.hf_local import HFLocalBackend

    capfd.readouterr()
    HFLocalBackend(tiny_model).load()
    assert "it/s" not in capfd.readouterr().err
    assert hf_logging.is_progress_bar_enabled()


def test_sampling_above_the_greedy_threshold(tiny_model: Path) -> None:
    from fcbench.models.hf_local import HFLocalBackend
    from fcbench.models.openai_compat import Sampling

    backend = HFLocalBackend(tiny_model, sampling=Sampling(temperature=0.7, top_p=0.9,
                                                           extra_body={"top_k": 5}))
    backend.load()
    [row] = backend.generate([[2, 4, 20, 21, 3, 5]], [6])
    assert 0 < len(row.tokens) <= 6


def test_cli_refuses_an_unusable_setup(fetched_home: Path, tiny_model: Path,
                                       tmp_path: Path) -> None:
    base = ["generate", "--backend", "hf", "--model", "tiny", "--categories", "simple_python",
            "--result-dir", str(tmp_path / "r"), "--quiet"]
    missing = CliRunner().invoke(main, [*base, "--model-path", str(tmp_path / "nowhere")])
    assert missing.exit_code == 2 and "no model folder" in missing.output
    no_format = CliRunner().invoke(main, [*base, "--model-path", str(tiny_model)])
    assert no_format.exit_code == 2 and "--tool-call-format" in no_format.output


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_tiny_model_runs_multi_turn_cases(
    fetched_home: Path, tiny_model: Path, tmp_path: Path, mode: str
) -> None:
    """The conversation loop drives a local model too: every turn asked (gibberish does not
    decode, so each turn is one step), stored in the multi-turn shape, and scored."""
    from fcbench.api import evaluate
    from fcbench.dataset.load import load_category

    name = f"tiny-mt-{mode}"
    args = ["run", "--backend", "hf", "--model", "tiny", "--model-path", str(tiny_model),
            "--name", name, "--mode", mode, "--categories", "multi_turn_base",
            "--result-dir", str(tmp_path / "result"), "--score-dir", str(tmp_path / "score"),
            "--max-tokens", "6", "--concurrency", "2", "--quiet"]
    if mode == "fc":
        args += ["--tool-call-format", "hermes"]
    cases = {c.id: c for c in load_category("multi_turn_base")[:2]}
    path = tmp_path / "result" / name / "multi_turn" / "BFCL_v4_multi_turn_base_result.json"
    path.parent.mkdir(parents=True)
    # resume: every case but the first two is already "done", so only those two are asked
    done = [c for c in load_category("multi_turn_base") if c.id not in cases]
    path.write_text("".join(json.dumps({"id": c.id, "result": []}) + "\n" for c in done))
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    entries = {e["id"]: e for e in map(json.loads, path.read_text().splitlines())}
    for case_id, case in cases.items():
        entry = entries[case_id]
        assert len(entry["result"]) == len(case.question)
        assert all(len(turn) >= 1 for turn in entry["result"])
        assert len(entry["inference_log"]) >= 2 * len(case.question)
    report = evaluate(tmp_path / "result", models=[name], categories=["multi_turn_base"])
    verdicts = {c.id: c.verdict for c in report.models[name].categories["multi_turn_base"].cases}
    assert all(not verdicts[i].valid and verdicts[i].error_type for i in cases)


def test_a_model_seed_makes_sampling_repeatable(tiny_model: Path) -> None:
    """`--model-seed`: the same seed draws the same tokens whatever ran before; a different
    seed draws from another stream."""
    import torch

    from fcbench.models.hf_local import HFLocalBackend
    from fcbench.models.openai_compat import Sampling

    def draw(seed: int) -> list[list[int]]:
        backend = HFLocalBackend(tiny_model, sampling=Sampling(temperature=5.0, seed=seed))
        backend.load()
        torch.manual_seed(1234 + seed)  # whatever the global stream was, the seed wins
        return [list(backend.generate([[2, 4, 20, 21, 3, 5]], [24])[0].tokens) for _ in range(2)]

    first = draw(1)
    assert first[0] == first[1] == draw(1)[0]
    assert draw(2)[0] != first[0]


def test_a_gguf_file_is_parsed_once_across_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """transformers parses a GGUF file for the tokenizer, the config and the weights, and builds
    one tensor-name table per module; the cache hands the first result to the later calls
    (also across the separate tokenizer and model loads), copies metadata so that a caller's
    edits stay its own, passes tensor reads through, and puts the originals back."""
    gguf = pytest.importorskip("gguf", reason="the hf extra (gguf) is not installed")
    pytest.importorskip("transformers", reason="the hf extra (transformers) is not installed")
    import transformers.modeling_gguf_pytorch_utils as gguf_utils

    from fcbench.models.hf_local import GgufParseCache

    calls: dict[str, int] = {"reader": 0, "names": 0, "metadata": 0, "tensors": 0}

    def reader(path: Any, mode: str = "r") -> object:
        calls["reader"] += 1
        return object()

    def names(arch: Any, blocks: int) -> object:
        calls["names"] += 1
        return object()

    def checkpoint(path: Any, return_tensors: bool = False, **kwargs: Any) -> dict[str, Any]:
        calls["tensors" if return_tensors else "metadata"] += 1
        return {"config": {"layers": 2}}

    monkeypatch.setattr(gguf, "GGUFReader", reader)
    monkeypatch.setattr(gguf, "get_tensor_name_map", names)
    monkeypatch.setattr(gguf_utils, "load_gguf_checkpoint", checkpoint)
    model = tmp_path / "m.gguf"
    model.write_bytes(b"")
    cache = GgufParseCache()
    with cache.active():  # the tokenizer's load
        first = gguf.GGUFReader(str(model))
        meta = gguf_utils.load_gguf_checkpoint(str(model))
        meta["config"]["layers"] = 99
    with cache.active():  # the model's load: the config, then the weights
        assert gguf.GGUFReader(tmp_path / "." / "m.gguf") is first
        assert gguf_utils.load_gguf_checkpoint(model, return_tensors=False)["config"] == {
            "layers": 2}
        table = gguf.get_tensor_name_map("llama", 30)
        assert all(gguf.get_tensor_name_map("llama", 30) is table for _ in range(3))
        gguf_utils.load_gguf_checkpoint(model, return_tensors=True)
        gguf_utils.load_gguf_checkpoint(model, return_tensors=True)
    assert calls == {"reader": 1, "names": 1, "metadata": 1, "tensors": 2}
    assert (gguf.GGUFReader, gguf.get_tensor_name_map, gguf_utils.load_gguf_checkpoint) == (
        reader, names, checkpoint)


def test_a_kept_generation_is_read_without_the_weights(
    tiny_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Behind the response cache the text and token counts are kept by the rendered prompt
    and sampling (`models.exchange`): a second backend object renders the prompt (the
    tokenizer only), loads no weights, generates nothing and reads the same reply."""
    import asyncio

    from fcbench.models.base import ChatRequest, Sampling
    from fcbench.models.hf_local import HFLocalBackend
    from fcbench.runner.cached import CacheSettings, with_cache

    generated: list[int] = []
    real = HFLocalBackend.generate

    def counting(self: HFLocalBackend, prompts: Any, budgets: Any, **kwargs: Any) -> Any:
        generated.append(len(prompts))
        return real(self, prompts, budgets, **kwargs)

    monkeypatch.setattr(HFLocalBackend, "generate", counting)
    request = ChatRequest([{"role": "user", "content": "what is the area of a"}], None,
                          "prompt")

    def step(backend: HFLocalBackend) -> Any:
        cached = with_cache(backend, "tiny", CacheSettings("always", tmp_path),
                            sampling=None, from_registry=True)
        return asyncio.run(cached.step(request)), cached

    first, _ = step(HFLocalBackend(tiny_model, sampling=Sampling(max_tokens=6)))
    assert generated == [1]
    monkeypatch.setattr(HFLocalBackend, "load", lambda self: generated.append(-1))
    second, cached = step(HFLocalBackend(tiny_model, sampling=Sampling(max_tokens=6)))
    assert generated == [1] and cached.run_summary()["cache"]["hits"] == 1
    assert (second.result, second.input_tokens, second.output_tokens, second.finish_reason) == (
        first.result, first.input_tokens, first.output_tokens, first.finish_reason)


def test_a_kept_generation_is_read_with_the_runs_own_parser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same without torch: a stand-in model (prompt rendering, loading and generation
    replaced) writes a hermes call as text; kept once, it is read as text without
    `--tool-call-format` and as the call with it, with no second load or generation."""
    import asyncio

    from fcbench.models.base import ChatRequest
    from fcbench.models.hf_local import HFLocalBackend, RowOutput
    from fcbench.runner.cached import CacheSettings, with_cache

    text = '<tool_call>\n{"name": "area", "arguments": {"a": 2}}\n</tool_call>'
    events: list[str] = []

    class Words:
        def decode(self, tokens: list[int], skip_special_tokens: bool = True) -> str:
            return text

    def load(self: HFLocalBackend) -> None:
        events.append("load")
        self._context = 4096

    async def submit(self: HFLocalBackend, ids: list[int], budget: int) -> RowOutput:
        events.append("generate")
        return RowOutput(tokens=[7, 8, 9], stopped=True, seconds=0.25)

    monkeypatch.setattr(HFLocalBackend, "render", lambda self, request: "rendered prompt")
    monkeypatch.setattr(HFLocalBackend, "load", load)
    monkeypatch.setattr(HFLocalBackend, "encode", lambda self, prompt: [1, 2, 3, 4])
    monkeypatch.setattr(HFLocalBackend, "tokenizer", lambda self: Words())
    monkeypatch.setattr(HFLocalBackend, "_submit", submit)
    request = ChatRequest([{"role": "user", "content": "area of 2"}], [{"type": "function"}])

    def step(output_format: str | None) -> Any:
        backend = HFLocalBackend(tmp_path / "model", output_format=output_format)
        cached = with_cache(backend, "m", CacheSettings("always", tmp_path / "cache"),
                            sampling=None, from_registry=True)
        return asyncio.run(cached.step(request))

    plain = step(None)
    parsed = step("hermes")
    assert events == ["load", "generate"]
    assert plain.result == text and plain.finish_reason == "stop"
    assert parsed.result == [{"area": '{"a": 2}'}] and parsed.extras["raw_text"] == text
    assert (parsed.input_tokens, parsed.output_tokens, parsed.latency) == (4, 3, 0.25)


LONG_ROW = [2, 4, 20, 21, 5]
"""A prompt the tiny model (seed 0, greedy) answers with its whole budget: no EOS comes."""


def test_a_raised_stop_flag_ends_the_batch_at_the_next_token(tiny_model: Path) -> None:
    """Issue 33 item 3: the stopping criteria read the batch's stop flag between tokens; a
    stopped batch is abandoned (GenerationStopped), never stored as if finished."""
    from fcbench.models.hf_local import GenerationStopped, HFLocalBackend, LiveBatch

    backend = HFLocalBackend(tiny_model)
    backend.load()
    live = LiveBatch(2, 0.0)
    live.stop.set()
    with pytest.raises(GenerationStopped):
        backend.generate([LONG_ROW, [2, 4, 24, 3, 5]], [4096, 4096], live=live)
    assert live.tokens == 2  # one step of two rows, then the flag


def test_closing_the_run_stops_the_batch_in_flight_within_seconds(tiny_model: Path) -> None:
    """`aclose` (reached when Ctrl-C cancels the run) halts a long batch: its thread ends at
    the next token instead of generating the rest of its 4096 tokens (about 5 s here, more
    under load); meanwhile `activity()` reports the tokens so far."""
    from fcbench.models.hf_local import HFLocalBackend

    backend = HFLocalBackend(tiny_model)
    backend.load()
    seen: list[str] = []

    async def scenario() -> float:
        asked = asyncio.ensure_future(backend._submit(LONG_ROW, 4096))
        while not asked.done():  # until the batch has made its first tokens
            said = backend.activity() or ""
            if (found := re.search(r": (\d+) token", said)) and int(found.group(1)) > 0:
                seen.append(said)
                break
            await asyncio.sleep(0.01)
        assert seen and not asked.done()
        started = time.perf_counter()
        await backend.aclose()
        closed = time.perf_counter() - started
        assert asked.done()
        return closed

    closed = asyncio.run(scenario())
    assert closed < 3.0, closed
    assert backend._thread is None and backend.activity() is None
    assert re.fullmatch(r"generating 1 case\(s\): \d+ token\(s\) so far, \d+ s", seen[0])


def _start(args: list[str]) -> subprocess.Popen[str]:
    """`fcbench ARGS` in a child process of its own, SIGINT at its default (a shell may start
    a background job with SIGINT ignored; Python would keep it ignored)."""
    return subprocess.Popen(
        [sys.executable, "-m", "fcbench.cli", *args], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env=os.environ.copy(),
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _wait_for(proc: subprocess.Popen[str], found: Any, what: str, limit: float = 240) -> str:
    """Read the child's stderr line by line until `found(line)` (a generous limit: the
    child imports torch on a shared machine)."""
    assert proc.stderr is not None
    deadline = time.monotonic() + limit
    seen = []
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        seen.append(line)
        if found(line):
            return line
    proc.kill()
    raise AssertionError(f"never saw {what}: {''.join(seen)[-2000:]}")


def _interrupt(proc: subprocess.Popen[str]) -> tuple[float, str]:
    """SIGINT once; (seconds until the child exited, the rest of its stderr)."""
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        _, rest = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError("still running 30 s after Ctrl-C") from None
    return time.monotonic() - started, rest


def test_ctrl_c_stops_a_local_model_run_and_keeps_its_cases(
    fetched_home: Path, tiny_model: Path, tmp_path: Path
) -> None:
    """Issue 33 item 3, end to end: SIGINT to a real `fcbench run --backend hf` once a case is
    written and the next batch shows its tokens: the child exits 130 within 10 s, the
    written cases stay (whole JSON lines), model.json's run log says interrupted, and the
    resumed run asks only the rest (it is interrupted in turn, before its work: cheap)."""
    rows = list(range(40))
    data = data_folder(tmp_path, {"simple_python": rows})
    args = ["run", "--backend", "hf", "--model", "tiny", "--model-path", str(tiny_model),
            "--name", "tiny-int", "--mode", "prompt", "--categories", "simple_python",
            "--data-dir", str(data), "--result-dir", str(tmp_path / "result"),
            "--score-dir", str(tmp_path / "score"), "--max-tokens", "400",
            "--concurrency", "1", "--progress-interval", "0.2", "--no-report"]
    folder = tmp_path / "result" / "tiny-int"
    results = folder / "non_live" / "BFCL_v4_simple_python_result.json"

    def written() -> int:
        return len(results.read_text().splitlines()) if results.exists() else 0

    proc = _start(args)
    _wait_for(proc, lambda line: "token(s) so far" in line and written() >= 1,
              "a written case and the next batch's tokens")
    seconds, rest = _interrupt(proc)
    assert seconds < 10, (seconds, rest)
    assert proc.returncode == 130, rest
    assert "Interrupted: every finished case is saved; resume with: fcbench run" in rest
    kept = [json.loads(line) for line in results.read_text().splitlines()]
    assert 1 <= len(kept) < len(rows)
    assert all("error" not in e and e["id"].startswith("simple_python_") for e in kept)
    log = json.loads((folder / "model.json").read_text())["runs"]
    assert len(log) == 1 and log[0]["stopped"] == "interrupted (Ctrl-C)"
    assert log[0]["finished_at"] and log[0]["already_done"] == 0

    again = _start(args)
    said = _wait_for(again, lambda line: "case(s) to ask" in line, "the resumed plan")
    _interrupt(again)
    assert f"{len(rows) - len(kept)} case(s) to ask ({len(kept)} already done)" in said
    log = json.loads((folder / "model.json").read_text())["runs"]
    assert [r["stopped"] for r in log] == ["interrupted (Ctrl-C)"] * 2
    assert log[1]["already_done"] == len(kept)
    assert [json.loads(line)["id"] for line in results.read_text().splitlines()][
        : len(kept)] == [e["id"] for e in kept]
