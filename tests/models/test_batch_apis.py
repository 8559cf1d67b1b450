"""The batch APIs' readings (output files, result lines), batch sizes, request names and the
kept batch ids, without a server (the end-to-end runs are in tests/e2e/test_batch_run.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fcbench.models.batch import BatchLine, BatchUnsupported, for_backend
from fcbench.models.batch_anthropic import read_results
from fcbench.models.batch_openai import read_output
from fcbench.runner.batch import _chunks, _State, custom_id

CHAT = {"choices": [{"message": {"role": "assistant", "content": "hi"}}]}


def test_openai_output_and_error_lines() -> None:
    lines = [
        {"custom_id": "a", "response": {"status_code": 200, "body": CHAT}, "error": None},
        {"custom_id": "b", "response": {"status_code": 400, "body": {
            "error": {"message": "bad tool schema"}}}, "error": None},
        {"custom_id": "c", "response": None, "error": {"code": "batch_expired",
                                                       "message": "This request expired."}},
        {"custom_id": "d", "response": {"status_code": 200, "body": {"choices": []}}},
        {"custom_id": "e", "response": {"status_code": 500, "body": CHAT}},  # status counts
        {"no_custom_id": True},
    ]
    text = "\n".join(json.dumps(line) for line in lines) + "\n{torn line\n\n[1, 2]\n"
    items = read_output(text)
    assert set(items) == {"a", "b", "c", "d", "e"}
    assert items["e"].body is None and items["e"].error is not None
    assert items["a"].decoded == CHAT and json.loads(str(items["a"].body)) == CHAT
    assert items["b"].body is None and items["b"].error == "HTTP 400: bad tool schema"
    assert items["c"].error == "This request expired."
    assert items["d"].body is None  # a 200 without choices is no answer: asked live


def test_anthropic_result_lines() -> None:
    message = {"id": "msg", "content": [{"type": "text", "text": "hi"}]}
    lines: list[Any] = [
        {"custom_id": "a", "result": {"type": "succeeded", "message": message}},
        {"custom_id": "b", "result": {"type": "errored", "error": {
            "type": "error", "error": {"type": "invalid_request_error", "message": "no"}}}},
        {"custom_id": "c", "result": {"type": "expired"}},
        {"custom_id": "d", "result": {"type": "succeeded", "message": {"content": "x"}}},
        {"custom_id": "e"},
        "just a string",
    ]
    items = read_results("\n".join(json.dumps(line) for line in lines))
    assert set(items) == {"a", "b", "c", "d"}
    assert items["a"].decoded == message
    assert items["b"].error == "errored: no" and items["c"].error == "expired"
    assert items["d"].body is None


def test_batches_keep_to_the_providers_limits() -> None:
    class Api:
        max_requests = 3
        max_bytes = 10_000

    lines = [BatchLine(str(i), {"path": "/x", "body": {"n": "y" * 900}}) for i in range(10)]
    chunks = _chunks(Api(), lines)  # type: ignore[arg-type]
    assert [len(c) for c in chunks] == [3, 3, 3, 1]
    assert [line for chunk in chunks for line in chunk] == lines
    Api.max_requests, Api.max_bytes = 100, 2_500
    assert [len(c) for c in _chunks(Api(), lines)] == [2] * 5  # ~1,100 bytes a line


def test_request_names_are_stable_and_fit_anthropic_ids() -> None:
    one = {"path": "/chat/completions", "body": {"model": "m", "messages": [], "n": 1}}
    same = {"body": {"n": 1, "messages": [], "model": "m"}, "path": "/chat/completions"}
    assert custom_id(one) == custom_id(same)
    assert len(custom_id(one)) == 64 and custom_id(one).isalnum()
    assert custom_id(one) != custom_id({**one, "body": {**one["body"], "n": 2}})


def test_an_unreadable_batch_record_stops_the_run_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "fcbench_batches.json"
    path.write_text('{"format": 1, "batches": [{"id": 3}]}')
    with pytest.raises(BatchUnsupported, match="delete it to submit them again") as caught:
        _State.load(path, "openai")
    assert "\n" not in str(caught.value)
    state = _State.load(tmp_path / "absent.json", "openai")
    state.intend("t1", ["a", "b"])
    state.confirm("t1", "batch_1")
    again = _State.load(tmp_path / "absent.json", "openai")
    assert again.held() == {"a", "b"} and again.batches[0]["id"] == "batch_1"


def test_backends_without_a_batch_api_are_refused() -> None:
    class Described:
        def __init__(self, kind: str) -> None:
            self.kind = kind

        def describe(self) -> dict[str, Any]:
            return {"backend": self.kind}

    with pytest.raises(BatchUnsupported, match="not a Gemini backend"):
        for_backend(Described("google"))  # its module found, the object checked
    with pytest.raises(BatchUnsupported, match=r"hf backend has no batch API \(offered for"):
        for_backend(Described("hf"))
    with pytest.raises(BatchUnsupported, match="not an OpenAI-compatible backend"):
        for_backend(Described("openai-compatible"))
