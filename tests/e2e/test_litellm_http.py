"""The LiteLLM backend end to end (marked `litellm`: it needs the opt-in extra, so the default
test run deselects it; .ci/run runs it in its own virtual environment built from the extra).

`--model litellm/openai/<model>` with LiteLLM's base URL pointed at a loopback
OpenAI-compatible stand-in (`FCBENCH_LITELLM_BASE_URL`), and the key read by LiteLLM itself
from OPENAI_API_KEY (fcbench passes none): five simple_python cases (one answered wrongly)
and one multi_turn_base case, against the plain OpenAI path on the same stand-in. The
conversation sent, the stored answers and every verdict are the plain path's; LiteLLM's
price of each request (its bundled table: no fetch, the network guard stays on) is kept per
case and step, and the leaderboard's cost column is their sum. Preflight is one one-token
request through LiteLLM before the first case.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_providers_http import (
    MULTI,
    SINGLE,
    Player,
    canonical,
    data_folder,
    invoke,
    stored,
    verdicts,
)

from fake_openai import FakeOpenAI

pytestmark = pytest.mark.litellm

KEY = "litellm-test-key-0123456789"
MODEL = "gpt-4"
"""A model in LiteLLM's bundled price table (the stand-in answers any name)."""


def sent_fields(body: dict[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    """The fields compared, without an assistant message's null `content` (LiteLLM leaves it
    out of a message that carries tool calls; the plain path sends it back as received)."""
    chosen = {k: body.get(k) for k in fields}
    chosen["messages"] = [{k: v for k, v in m.items() if not (k == "content" and v is None)}
                          for m in body["messages"]]
    return chosen


def without_prompt_counts(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Result lines without `input_token_count`: the stand-in counts a prompt's characters,
    and the null `content` LiteLLM leaves out counts as four."""
    return [{k: v for k, v in entry.items() if k != "input_token_count"} for entry in entries]


def costs(entry: dict[str, Any]) -> list[float]:
    value = entry.get("cost")
    if isinstance(value, list):
        return [c for turn in value for c in turn]
    return [value] if value is not None else []


def test_litellm_runs_as_the_plain_path_and_prices_each_request(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fcbench.models.litellm_backend import load_litellm
    from fcbench.report.csv_files import cost_latency, unknown_model
    from fcbench.score.usage import usage_from_result_files

    data, cases = data_folder(tmp_path, {SINGLE: [0, 1, 2, 3, 4], MULTI: [0]})
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    via, plain = Player(cases[SINGLE], cases[MULTI][0]), Player(cases[SINGLE], cases[MULTI][0])
    with FakeOpenAI(via, api_key=KEY, models=[MODEL]) as server:
        monkeypatch.setenv("FCBENCH_LITELLM_BASE_URL", server.base_url)
        by_litellm = invoke(tmp_path / "litellm", data, f"litellm/openai/{MODEL}")
    with FakeOpenAI(plain, api_key=KEY, models=[MODEL]) as server:
        by_url = invoke(tmp_path / "plain", data, MODEL, "--base-url", server.base_url)
    assert by_litellm.exit_code == 0, by_litellm.output
    assert by_url.exit_code == 0, by_url.output
    folder = f"openai_{MODEL}-FC"
    ping, *asked = via.bodies  # preflight before the first case: one token through LiteLLM
    assert ping == {"model": MODEL, "messages": [{"role": "user", "content": "ping"}],
                    "max_tokens": 1}
    assert len(asked) == len(plain.bodies) == 5 + 14
    fields = ("model", "messages", "tools", "temperature", "max_tokens")
    assert canonical([sent_fields(b, fields) for b in asked]) == canonical(
        [sent_fields(b, fields) for b in plain.bodies])
    answers = stored(tmp_path / "litellm", folder)
    priced = [costs(entry) for entry in answers]
    for entry in answers:
        entry.pop("cost", None)
    assert without_prompt_counts(answers) == without_prompt_counts(
        stored(tmp_path / "plain", f"{MODEL}-FC"))
    found = verdicts(tmp_path / "litellm", folder, data)
    assert found == verdicts(tmp_path / "plain", f"{MODEL}-FC", data)
    assert sum(valid for valid, _ in found.values()) == 5 and found[f"{MULTI}_0"] == (True, None)

    prices = load_litellm().model_cost[MODEL]
    usage = usage_from_result_files((tmp_path / "litellm/result" / folder).rglob("*_result.json"))
    expected = [i * prices["input_cost_per_token"] + o * prices["output_cost_per_token"]
                for i, o in zip(usage.input_tokens, usage.output_tokens, strict=True)]
    assert sorted(c for case in priced for c in case) == pytest.approx(sorted(expected))
    assert len(usage.costs) == len(usage.latencies) == 5 + 14
    assert cost_latency(usage, unknown_model(folder)).cost == round(sum(expected), 2)
    manifest = json.loads((tmp_path / "litellm/result" / folder / "model.json").read_text())
    assert (manifest["backend"], manifest["provider"], manifest["model"]) == (
        "litellm", "litellm", f"openai/{MODEL}")
    assert manifest["litellm_version"] == "1.82.6"


def test_a_refused_key_stops_litellm_at_preflight(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One line naming the endpoint, before the first case; the key never printed."""
    data, cases = data_folder(tmp_path, {SINGLE: [0], MULTI: [0]})
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    player = Player(cases[SINGLE], cases[MULTI][0])
    with FakeOpenAI(player, api_key="another-key-entirely") as server:
        result = invoke(tmp_path, data, f"openai/{MODEL}", "--backend", "litellm",
                        "--base-url", server.base_url)
        asked = server.requests  # the refused ping only
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(f"fcbench: error: {server.base_url} refused the API key (HTTP 401")
    assert asked == 1 and not player.bodies and KEY not in result.output


def test_litellms_logs_are_masked(monkeypatch: pytest.MonkeyPatch,
                                  caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from fcbench.models.litellm_backend import LOGGERS, load_litellm

    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-secret-canary-0123456789")
    load_litellm()
    with caplog.at_level(logging.WARNING):
        for name in LOGGERS:
            logging.getLogger(name).warning("signing with aws-secret-canary-0123456789")
    assert len(caplog.records) == len(LOGGERS)
    assert "aws-secret-canary" not in caplog.text and "***" in caplog.text
