"""The original benchmark end to end: `fcbench run` generates and scores the retired v1
categories (exec_*, rest, sql, chatable) like the others.

* Over real HTTP against a local server answering with recorded 2024 outputs (gpt-4o, FC and
  prompt; ../shared/corpus/v1): the executable verdicts of `fcbench run --categories
  executable --exec-backend offline` equal those of `fcbench evaluate` on the recordings, over
  a stripe of the cases (every other case of each category: FC the even positions, prompt
  the odd ones; together every case, and every category in each).
* `fcbench run --model ground-truth --categories v1` offline: every scored category at 100%
  except the listed dataset defects, the skipped cases exactly those whose ground truth needs
  a web service, sql and chatable kept and shown as not scored, the v1 Overall printed.
* `live` with recording against a loopback stand-in for the web APIs, then `replay` with the
  stand-in stopped: identical verdicts, for the ground truth and for a recorded model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from test_run_corpus import original

from fake_openai import CorpusResponder, FakeOpenAI
from fake_web_apis import KEYS, FakeWebApis, known_answers
from fcbench.cli import main
from shared_corpus import REASON, V1
from stripes import stripe

CORPUS = V1
EXECUTABLE = ["exec_simple", "exec_multiple", "exec_parallel", "exec_parallel_multiple", "rest"]
MODELS = {"fc": "gpt-4o-2024-08-06-FC", "prompt": "gpt-4o-2024-08-06"}


@pytest.fixture(scope="module")
def corpus() -> Path:
    if not (CORPUS / MODELS["fc"] / "BFCL_v4_rest_result.json").is_file():
        pytest.skip(REASON)
    return CORPUS


def cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def verdicts(result_dir: Path, model: str, cats: list[str], ids: list[str] | None = None,
             **options: Any) -> dict[str, Any]:
    from fcbench.api import evaluate
    from fcbench.dataset.selection import Selection

    selection = Selection.of(ids=ids) if ids is not None else None
    report = evaluate(result_dir, models=[model], categories=cats, selection=selection,
                      **options)
    return {
        c.id: (c.verdict.valid, c.verdict.error_type)
        for evaluation in report.models[model].categories.values()
        for c in evaluation.cases
    }


def run_args(tmp: Path, *extra: str) -> list[str]:
    return ["run", "--result-dir", str(tmp / "result"), "--score-dir", str(tmp / "score"),
            "--quiet", *extra]


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_run_executable_equals_evaluate_on_the_recordings(
    fetched_home: Path, corpus: Path, tmp_path: Path, mode: str
) -> None:
    model = MODELS[mode]
    ids = stripe(EXECUTABLE, part=0 if mode == "fc" else 1)
    responder = CorpusResponder(corpus / model, EXECUTABLE)
    with FakeOpenAI(responder) as server:
        result = cli(*run_args(tmp_path, "--model", "gpt-4o-2024-08-06", "--name", model,
                               "--mode", mode, "--base-url", server.base_url,
                               "--categories", "executable", "--ids", ",".join(ids),
                               "--exec-backend", "offline", "--concurrency", "16"))
    assert result.exit_code == 0, result.output
    assert sum(responder.asked.values()) == len(ids) and max(responder.asked.values()) == 1
    ours = verdicts(tmp_path / "result", model, EXECUTABLE, ids)
    theirs = original(corpus, tmp_path, model, EXECUTABLE, ids)
    assert sorted(ours) == sorted(ids) and ours == theirs
    assert {valid for valid, _ in ours.values()} == {True, False}  # a real mix, not all one way
    assert sum(error == "fcbench:skipped" for _, error in ours.values()) > 0
    for name in EXECUTABLE:
        stored = tmp_path / "result" / model / "non_live" / f"BFCL_v4_{name}_result.json"
        got = [json.loads(line)["result"] for line in stored.read_text().splitlines()]
        want = [entry["result"]
                for entry in map(json.loads, (corpus / model / f"BFCL_v4_{name}_result.json")
                                 .read_text().splitlines()) if entry["id"] in ids]
        assert got == want and got, name


# --------------------------------------------------------------------------- ground truth

HEALTH = {
    # the single-turn dataset defects (see tests/models/test_ground_truth.py)
    "fc": {"simple_java_36", "simple_java_64", "simple_java_65", "parallel_multiple_26"},
    "prompt": {"simple_java_1", "simple_java_35", "simple_java_36", "simple_java_48",
               "simple_java_65", "simple_java_67", "simple_java_68", "simple_java_85",
               "parallel_multiple_26"},
}


def needs_web(case: Any) -> bool:
    """Whether a case's ground truth calls a web-service function (judged independently of
    the checker: by the names in the calls)."""
    from fcbench.envs.exec_functions import needs_service
    from fcbench.ground_truth.executable import ground_truth_calls

    return any(needs_service(call.split("(", 1)[0]) for call in ground_truth_calls(case))


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_ground_truth_v1_offline(fetched_home: Path, tmp_path: Path, mode: str) -> None:
    from fcbench.core import categories
    from fcbench.dataset.load import load_category

    result = cli(*run_args(tmp_path, "--model", "ground-truth", "--mode", mode,
                           "--categories", "v1"))
    assert result.exit_code == 0, result.output
    assert "asked 2000 case(s)" in result.output
    assert "v1 Overall (2024)" in result.output and "N/A (not scored)" in result.output
    folder = "ground-truth-FC" if mode == "fc" else "ground-truth"
    for name in ("sql", "chatable"):  # kept in the result files
        stored = tmp_path / "result" / folder / "non_live" / f"BFCL_v4_{name}_result.json"
        assert len(stored.read_text().splitlines()) == (100 if name == "sql" else 200)
    scored = verdicts(tmp_path / "result", folder, ["v1"])
    web = {c.id for name in EXECUTABLE for c in load_category(name) if needs_web(c)}
    skipped = {i for i, (_, error) in scored.items() if error == "fcbench:skipped"}
    failed = {i for i, (valid, error) in scored.items() if not valid} - skipped
    assert len(scored) == sum(len(load_category(n)) for n in categories.V1)
    assert skipped == web and len(web) == 176
    assert failed == HEALTH[mode]


# --------------------------------------------------------------------------- live, replay


@pytest.fixture
def web_apis(fetched_home: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    with FakeWebApis(known_answers()) as fake:
        monkeypatch.setenv("FCBENCH_EXEC_ROUTES", json.dumps(fake.routes()))
        for variable, value in KEYS.items():
            monkeypatch.setenv(variable, value)
        yield fake


def test_live_recording_replays_to_the_same_verdicts(
    web_apis: FakeWebApis, corpus: Path, tmp_path: Path
) -> None:
    recordings = tmp_path / "recorded"
    live = ["--exec-backend", "live", "--exec-replay-dir", str(recordings)]
    truth = cli(*run_args(tmp_path, "--model", "ground-truth", "--categories", "executable",
                          *live))
    assert truth.exit_code == 0, truth.output
    assert "web API check (live exec backend): 29 API(s): 29 ok" in truth.output
    assert "fail 0 case(s)" in truth.output and "skipped" not in truth.output
    model = MODELS["fc"]
    with FakeOpenAI(CorpusResponder(corpus / model, EXECUTABLE)) as server:
        answered = cli("generate", "--model", "gpt-4o-2024-08-06", "--name", model,
                       "--base-url", server.base_url, "--categories", "executable",
                       "--result-dir", str(tmp_path / "result"), "--quiet")
    assert answered.exit_code == 0, answered.output
    live_verdicts = verdicts(tmp_path / "result", model, EXECUTABLE, exec_backend="live",
                             exec_replay_dir=recordings)
    assert web_apis.requests > 200 and any(p.startswith("geocode") for p in web_apis.seen)
    web_apis.__exit__()  # from here on nothing answers: replay must need no network
    for name, want in (("ground-truth-FC", None), (model, live_verdicts)):
        got = verdicts(tmp_path / "result", name, EXECUTABLE, exec_backend="replay",
                       exec_replay_dir=recordings)
        assert len(got) == 310
        assert not any(error == "fcbench:skipped" for _, error in got.values())
        if want is None:
            assert all(valid for valid, _ in got.values())  # as the live run scored it
        else:
            assert got == want
    valid = [ok for ok, _ in live_verdicts.values()]
    assert 0 < sum(valid) < len(valid)  # the recorded model passes some, fails others
    recorded_text = "".join(p.read_text() for p in recordings.iterdir())
    assert all(value not in recorded_text for value in KEYS.values())  # keys never recorded
