"""The Gemini backend (optional extra): request shape against the official Gemini handler, and
replayed runs end to end against a local server speaking the Gemini REST API (a stripe of
every third case of each recorded category)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import test_official_requests
from click.testing import CliRunner
from test_official_requests import copy

from fake_gemini import FakeGemini
from fake_openai import CorpusResponder
from fcbench.cli import main
from fcbench.models.google_native import gemini_contents, gemini_declarations, parse
from shared_corpus import V1, needs_corpus
from stripes import stripe


@pytest.fixture(autouse=True, scope="module")
def _google_extra() -> None:
    """Every test here needs the google extra, skipped without it. Imported when the first
    test runs, not at collection: the SDK takes seconds to import, which every xdist worker
    would pay while only one runs these tests."""
    pytest.importorskip("google.genai",
                        reason="the google extra (google-genai) is not installed")


official = test_official_requests.official  # the oracle fixture (official modules, stubbed)

CORPUS = V1
CATS = ["simple_python", "parallel", "irrelevance"]
MODELS = {"fc": "command-r-plus-FC", "prompt": "gpt-4o-2024-08-06"}
STRIPES = {"fc": 0, "prompt": 1}
"""The replays ask every third case of each category, from this offset: each recorded case
takes the same way through the request builder, the SDK, the fake server and `parse`, and
every category (parallel calls, irrelevance) stays in each stripe. Still fails when `parse`
keeps only the first function call of a candidate (tried)."""


def recorded_lines(model: str, name: str, ids: set[str]) -> list[str]:
    """The recorded result lines of `ids` in one category's file, in its order."""
    lines = (CORPUS / model / f"BFCL_v4_{name}_result.json").read_text().splitlines()
    return [line for line in lines if json.loads(line)["id"] in ids]


def test_declarations_move_unsupported_fields_into_descriptions() -> None:
    tools = [{"type": "function", "function": {
        "name": "f", "description": "D.", "response": {"type": "dict"},
        "parameters": {"type": "object", "optional": ["a"], "properties": {
            "a": {"type": "integer", "default": 3, "enum": [1, 2], "maximum": 9},
            "b": {"type": "string", "format": "date", "enum": ["x"]},
        }}}}]
    [decl] = gemini_declarations(tools)
    assert decl["description"] == (
        'D. The response field has the following schema: {"type": "dict"}')
    assert decl["parameters"] == {"type": "object", "properties": {
        "a": {"type": "integer",
              "description": " Default is: 3. Maximum value: 9. Enum values: [1, 2]."},
        "b": {"type": "string", "enum": ["x"], "description": " Format: date."},
    }}
    assert "response" in tools[0]["function"]  # the input is not edited


def test_contents_move_system_and_rename_assistant() -> None:
    system, contents = gemini_contents([
        {"role": "system", "content": "S"},
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "b"},
    ])
    assert system == "S"
    assert contents == [{"role": "user", "parts": [{"text": "a"}]},
                        {"role": "model", "parts": [{"text": "b"}]}]


def test_parse_parts() -> None:
    answer = {
        "candidates": [{"content": {"parts": [
            {"text": "hmm", "thought": True},
            {"function_call": {"name": "f", "args": {"a": 1}}},
            {"text": "t"},
        ]}, "finish_reason": "STOP"}],
        "usage_metadata": {"prompt_token_count": 3, "candidates_token_count": 4},
    }
    fc = parse(answer, "fc", 0.1, "u")
    assert fc.result == [{"f": {"a": 1}}] and fc.input_tokens == 3 and fc.output_tokens == 4
    assert fc.reasoning == "hmm" and fc.finish_reason == "STOP"
    assert fc.tool_call_ids == ["call_0"] and fc.message is not None
    assert fc.message["_native"] == answer["candidates"][0]["content"]  # back as returned
    texts = {"candidates": [{"content": {"parts": [{"text": "t"}]}}]}
    assert parse(texts, "fc", 0.1, "u").result == ["t"]
    assert parse(texts, "prompt", 0.1, "u").result == "t"
    assert parse({"candidates": []}, "fc", 0.1, "u").result == []
    empty = parse({"candidates": []}, "prompt", 0.1, "u").result
    assert empty == "The model did not return any response."


def _official_request(handler: Any, entry: dict[str, Any], mode: str) -> dict[str, Any]:
    """What the official handler passes to `client.models.generate_content` for one case."""
    seen: list[dict[str, Any]] = []
    handler.generate_with_backoff = lambda **kwargs: seen.append(kwargs)
    if mode == "fc":
        data = handler._pre_query_processing_FC({}, entry)
        data = handler._compile_tools(data, entry)
        data = handler.add_first_turn_message_FC(data, entry["question"][0])
        handler._query_FC(data)
    else:
        data = handler._pre_query_processing_prompting(entry)
        data = handler.add_first_turn_message_prompting(data, entry["question"][0])
        handler._query_prompting(data)
    [kwargs] = seen
    return kwargs


@pytest.mark.parametrize("category", ["simple_python", "simple_java", "simple_javascript",
                                      "parallel_multiple", "live_multiple", "live_relevance",
                                      "irrelevance"])
def test_requests_equal_the_official_gemini_handler(
    fetched_home: Path, official: Any, category: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bfcl_eval.model_handler.api_inference.gemini import GeminiHandler
    from google.genai import types

    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.dataset.load import load_category
    from fcbench.dataset.prompt_texts import load_texts
    from fcbench.models.google_native import GoogleBackend
    from fcbench.models.prompts import build_request

    monkeypatch.setenv("GOOGLE_API_KEY", "unused")
    handler = GeminiHandler("gemini-x", 0.001, "gemini-x-FC", True)
    texts = load_texts(DEFAULT_RELEASE)
    backend = GoogleBackend("gemini-x", [])
    for case in load_category(category):
        for mode in ("fc", "prompt"):
            entry = {"id": case.id, "question": copy(case.question),
                     "function": copy(case.functions)}
            [entry] = official.hints([entry])
            want = _official_request(handler, entry, mode)
            contents, config = backend.request(
                build_request(case, "fc" if mode == "fc" else "prompt", texts)
            )
            ours = types.GenerateContentConfig.model_validate(config)
            assert want["model"] == "gemini-x"
            assert [types.Content.model_validate(c) for c in contents] == want["contents"], (
                case.id, mode)
            assert ours.model_dump(exclude_none=True) == want["config"].model_dump(
                exclude_none=True), (case.id, mode)


def test_wire_bodies_equal_the_official_handlers(
    fetched_home: Path, official: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sample sent over HTTP by both, through the SDK: the same bodies reach the server."""
    import asyncio

    from bfcl_eval.model_handler.api_inference.gemini import GeminiHandler
    from google import genai

    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.dataset.load import load_category
    from fcbench.dataset.prompt_texts import load_texts
    from fcbench.models.google_native import GoogleBackend
    from fcbench.models.prompts import build_request

    monkeypatch.setenv("GOOGLE_API_KEY", "unused")
    texts = load_texts(DEFAULT_RELEASE)
    sample = [*load_category("simple_java")[:3], *load_category("live_multiple")[:3],
              *load_category("parallel")[:2]]
    with FakeGemini(lambda chat: {"content": "ok"}) as server:
        for mode in ("fc", "prompt"):
            handler = GeminiHandler("gemini-x", 0.001, "gemini-x", mode == "fc")
            handler.client = genai.Client(api_key="unused",
                                          http_options={"base_url": server.base_url})
            backend = GoogleBackend("gemini-x", [server.base_url])
            for case in sample:
                entry = {"id": case.id, "question": copy(case.question),
                         "function": copy(case.functions)}
                [entry] = official.hints([entry])
                if mode == "fc":
                    data = handler._pre_query_processing_FC({}, entry)
                    data = handler._compile_tools(data, entry)
                    data = handler.add_first_turn_message_FC(data, entry["question"][0])
                    handler._query_FC(data)
                else:
                    data = handler._pre_query_processing_prompting(entry)
                    data = handler.add_first_turn_message_prompting(data, entry["question"][0])
                    handler._query_prompting(data)

                async def ours(case: Any = case, mode: Any = mode,
                               backend: Any = backend) -> None:
                    try:
                        await backend.step(build_request(case, mode, texts))
                    finally:
                        await backend.aclose()

                asyncio.run(ours())
                (want_path, want), (path, got) = server.bodies[-2:]
                assert path == want_path
                assert path.endswith("/models/gemini-x:generateContent")
                assert got == want, (case.id, mode)
    assert len(server.bodies) == 2 * 2 * len(sample)


@needs_corpus
@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_replayed_gemini_run_scores_like_the_recorded_files(
    fetched_home: Path, tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fcbench.api import evaluate

    model = MODELS[mode]
    ids = stripe(CATS, STRIPES[mode], 3)  # every third case of each category
    monkeypatch.setenv("FCBENCH_TEST_GEMINI_KEY", "k")
    with FakeGemini(CorpusResponder(CORPUS / model, CATS)) as server:
        result = CliRunner().invoke(main, [
            "run", "--backend", "google", "--model", "gemini-x", "--name", model,
            "--mode", mode, "--base-url", server.base_url, "--api-key-env",
            "FCBENCH_TEST_GEMINI_KEY", "--categories", ",".join(CATS), "--ids", ",".join(ids),
            "--result-dir", str(tmp_path / "result"), "--score-dir", str(tmp_path / "score"),
            "--concurrency", "16", "--quiet",
        ], catch_exceptions=False)
        path, request = server.bodies[0]
    assert result.exit_code == 0, result.output
    assert len(server.bodies) == len(ids)
    assert path.endswith("/models/gemini-x:generateContent")
    assert request["generationConfig"]["temperature"] == 0.001
    assert ("tools" in request) == (mode == "fc")
    assert (mode == "prompt") == ("systemInstruction" in request)
    original = tmp_path / "original" / model
    original.mkdir(parents=True)
    shutil.copy(CORPUS / model / "model.json", original)
    for name in CATS:  # the recorded answers of the stripe's cases
        (original / f"BFCL_v4_{name}_result.json").write_text(
            "".join(line + "\n" for line in recorded_lines(model, name, set(ids))))

    def verdicts(folder: Path) -> dict[str, Any]:
        report = evaluate(folder, models=[model], categories=CATS)
        return {c.id: (c.verdict.valid, c.verdict.error_type)
                for e in report.models[model].categories.values() for c in e.cases}

    ours = verdicts(tmp_path / "result")
    assert sorted(ours) == sorted(ids)
    assert ours == verdicts(tmp_path / "original")
    manifest = json.loads((tmp_path / "result" / model / "model.json").read_text())
    assert manifest["backend"] == "google"
    assert manifest["fc_args"] == ("object" if mode == "fc" else None)
    if mode == "fc":  # calls are stored as the official Gemini handler stores them
        stored = tmp_path / "result" / model / "non_live" / "BFCL_v4_simple_python_result.json"
        recorded = recorded_lines(model, "simple_python", set(ids))
        got = [json.loads(line)["result"] for line in stored.read_text().splitlines()]
        assert got == [json.loads(line)["result"] for line in recorded]


def test_the_model_seed_goes_into_the_generation_config() -> None:
    from fcbench.models.base import ChatRequest, Sampling
    from fcbench.models.google_native import GoogleBackend

    request = ChatRequest([{"role": "user", "content": "q"}], None, "prompt")
    _, config = GoogleBackend("gemini-x", [], sampling=Sampling(seed=9)).request(request)
    assert config["seed"] == 9
    assert "seed" not in GoogleBackend("gemini-x", []).request(request)[1]


def test_the_sdk_talks_through_the_capped_client_even_with_aiohttp_installed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The SDK switches to aiohttp whenever aiohttp is importable (another package's
    dependency is enough), bypassing the reply cap's hook: only a transport given to it keeps
    it on the capped client. Fails when the backend stops passing one (seen: an endless reply
    read to 800 MiB once lm_eval's dependencies brought aiohttp)."""
    from google.genai import _api_client

    from fcbench.models.google_native import GoogleBackend

    monkeypatch.setattr(_api_client, "has_aiohttp", True)
    backend = GoogleBackend("m", ["http://127.0.0.1:9"], api_key="k", max_reply_bytes=1000)
    client = backend._make_client("http://127.0.0.1:9")
    assert not client._api_client._use_aiohttp()
    hooks = client._api_client._async_httpx_client.event_hooks["response"]
    assert len(hooks) == 1
