"""The response cache keeps answers, not interpretations (issue 31): runs that read one
server's replies differently (a corrections profile, a text tool-call parser, a prompt
format's decoder) share one cache, each stores its own reading, and the server is asked once
per distinct request.

The server answers every chat request with `tool_calls: []` beside a hermes-style text call,
the reply that splits readings: upstream's keeps `[]`, the community-2026 profile the text,
`--tool-call-format hermes` the call the text holds. Completions requests get the text after
a `<think>` block: the `qwen` and `minicpm` prompt formats send the very same prompt and read
the completion apart (qwen's handler drops the reasoning, minicpm's keeps it in the text).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from fake_openai import FakeOpenAI
from fcbench.cli import main


def text_call(name: str) -> str:
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": {"x": 1}}) + "\n</tool_call>"


THOUGHT = "<think>plan</think>\n"


class TextCaller:
    """Answers with a call written as text (and an empty `tool_calls` list to chat requests);
    counts each distinct request body it was sent."""

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        self.seen[json.dumps(request, sort_keys=True)] += 1
        tools = request.get("tools")
        if tools:
            return {"content": text_call(tools[0]["function"]["name"]), "tool_calls": []}
        return {"content": THOUGHT + text_call("f")}


def generate(server: FakeOpenAI, tmp: Path, name: str, *more: str) -> Result:
    args = ["generate", "--model", "m", "--base-url", server.base_url, "--categories",
            "simple_python", "--limit", "2", "--name", name, "--result-dir", str(tmp / "r"),
            *more]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def stored(tmp: Path, name: str) -> dict[str, Any]:
    """The run's results by case id (what its result file holds)."""
    found = {}
    for path in (tmp / "r" / name).rglob("BFCL_v4_*_result.json"):
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            found[entry["id"]] = entry["result"]
    assert len(found) == 2
    return found


def test_each_run_reads_the_kept_replies_its_own_way(
    fetched_home: Path, tmp_path: Path, cache_on: Path
) -> None:
    caller = TextCaller()
    profile = ("--corrections", "community-2026")
    hermes = ("--tool-call-format", "hermes")
    runs = [("plain", ()), ("profile", profile), ("hermes", hermes), ("plain-again", ()),
            ("profile-again", profile), ("both", (*profile, *hermes))]
    with FakeOpenAI(caller) as server:
        lines = {name: generate(server, tmp_path, name, *flags).stderr for name, flags in runs}
        chat_requests = server.requests
        families = ["qwen", "minicpm", "qwen", "minicpm"]
        for i, family in enumerate(families):
            generate(server, tmp_path, f"{family}-{i}", "--backend", "completions",
                     "--prompt-format", family)
        completion_requests = server.requests - chat_requests
    readings = {name: stored(tmp_path, name) for name, _ in runs}
    for case in readings["plain"]:
        assert readings["plain"][case] == readings["plain-again"][case] == []
        text = readings["profile"][case]
        assert isinstance(text, str) and text.startswith("<tool_call>")
        assert readings["profile-again"][case] == text
        (call,) = readings["hermes"][case]
        assert text_call(next(iter(call))) == text  # the call the text holds
        assert json.loads(call[next(iter(call))]) == {"x": 1}
        assert readings["both"][case] == readings["hermes"][case]

    kept = {name: stored(tmp_path, name) for name in ("qwen-0", "minicpm-1", "qwen-2",
                                                       "minicpm-3")}
    for case, text in kept["qwen-0"].items():
        assert text == text_call("f") == kept["qwen-2"][case]  # qwen drops the reasoning
        assert kept["minicpm-1"][case] == kept["minicpm-3"][case] == THOUGHT + text
    # asked once per distinct request: two cases, one chat body each whatever the reading
    # (the flags change no byte sent); the two formats render the same prompt
    assert chat_requests == 2 and completion_requests == 2
    assert sum(caller.seen.values()) == len(caller.seen) == 4
    assert "0 hit(s), 2 miss(es)" in lines["plain"]
    assert all("2 hit(s), 0 miss(es)" in lines[name] for name, _ in runs[1:])


def test_a_key_echoed_in_a_reply_is_never_kept(
    fetched_home: Path, tmp_path: Path, cache_on: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that echoes the key (in the text, as an Authorization header, inside a tool
    call's arguments): the kept body holds no form of it, is still the same JSON, and a
    repeated run (all hits) stores what the first one stored."""
    from urllib.parse import quote

    key = 'sk-echo"quote\\back-7f3a9c'
    monkeypatch.setenv("OPENAI_API_KEY", key)

    def echo(request: dict[str, Any]) -> dict[str, Any]:
        name = request["tools"][0]["function"]["name"]
        arguments = json.dumps({"token": key, "x": 1})
        return {"content": f"you sent Authorization: Bearer {key}",
                "tool_calls": [{"id": "c0", "type": "function",
                                "function": {"name": name, "arguments": arguments}}]}

    with FakeOpenAI(echo) as server:
        first = generate(server, tmp_path, "first")
        second = generate(server, tmp_path, "second")
        assert server.requests == 2
    assert "2 hit(s), 0 miss(es)" in second.stderr and "0 hit(s)" in first.stderr
    assert stored(tmp_path, "second") == stored(tmp_path, "first")
    for case, result in stored(tmp_path, "first").items():
        ((_, arguments),) = result[0].items()
        assert json.loads(arguments) == {"token": "***", "x": 1}, case

    forms = {key, json.dumps(key)[1:-1], quote(key, safe=""), quote(key)}
    forms |= {json.dumps(form)[1:-1] for form in forms}  # a body is a string in its row
    files = [p for p in cache_on.iterdir() if p.is_file()]
    assert files and all(form.encode() not in p.read_bytes() for p in files for form in forms)
    import sqlite3

    db = sqlite3.connect(cache_on / "responses.sqlite3")
    rows = [json.loads(text) for (text,) in db.execute("SELECT reply FROM responses")]
    db.close()
    assert len(rows) == 2
    for row in rows:
        message = json.loads(row["body"])["choices"][0]["message"]
        assert message["content"] == "you sent Authorization: Bearer ***"
