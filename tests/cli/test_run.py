"""`fcbench generate` / `fcbench run`: flags, errors, the ground-truth self-check, formats."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fake_openai import FakeOpenAI
from fcbench.cli import main


def cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_ground_truth_run_and_rerun_failed(fetched_home: Path, tmp_path: Path) -> None:
    base = ["--model", "ground-truth", "--categories", "live_simple",
            "--result-dir", str(tmp_path / "result"), "--score-dir", str(tmp_path / "score")]
    result = cli("run", *base)
    assert result.exit_code == 0, result.output
    assert "Self-check (fc mode)" in result.output
    assert "fail 2 case(s)" in result.output and "live_simple_106-63-0" in result.output
    folder = tmp_path / "result" / "ground-truth-FC"
    assert (folder / "live" / "BFCL_v4_live_simple_result.json").is_file()
    manifest = json.loads((folder / "model.json").read_text())
    assert manifest["backend"] == "ground-truth" and manifest["fc_names"] == "underscore"
    again = cli("generate", *base, "--rerun-failed")
    assert "asked 2 case(s)" in again.output and "256 already done" in again.output
    resumed = cli("generate", *base)
    assert "asked 0 case(s)" in resumed.output


def test_refusals(fetched_home: Path, tmp_path: Path) -> None:
    out = ["--result-dir", str(tmp_path / "r")]
    no_url = cli("generate", "--model", "m", "--categories", "simple_python", *out)
    assert no_url.exit_code == 2 and "--base-url" in no_url.output
    multi = cli("generate", "--model", "ground-truth", "--categories", "multi_turn_composite", *out)
    assert multi.exit_code == 2 and "can generate" in multi.output
    unknown = cli("generate", "--model", "ground-truth", "--categories", "nope", *out)
    assert unknown.exit_code == 2 and "unknown category" in unknown.output
    bad = cli("generate", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
              "--extra-body", "{nope", "--categories", "simple_python", *out)
    assert bad.exit_code == 2 and "--extra-body" in bad.output
    cli("generate", "--model", "ground-truth", "--name", "gt", "--categories", "irrelevance", *out)
    clash = cli("generate", "--model", "ground-truth", "--name", "gt", "--mode", "prompt",
                "--categories", "irrelevance", *out)
    assert clash.exit_code == 2 and 'mode: "fc" -> "prompt"' in clash.output


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


@pytest.mark.parametrize("change", [
    ["--temperature", "0.7"],
    ["--model", "other"],
    ["--prompt-format", "qwen"],
    ["--model-seed", "3"],
])
def test_resuming_another_configuration_is_refused_before_anything_is_asked(
    fetched_home: Path, tmp_path: Path, change: list[str]
) -> None:
    results = tmp_path / "r"
    with FakeOpenAI() as server:
        first = ["--model", "m", "--base-url", server.base_url, "--mode", "prompt",
                 "--categories", "simple_python", "--limit", "2", "--name", "kept",
                 "--result-dir", str(results)]
        assert cli("generate", *first).exit_code == 0
        before, asked = snapshot(results), (server.requests, server.gets)
        flags = dict(zip(first[::2], first[1::2], strict=True))
        flags.update(zip(change[::2], change[1::2], strict=True))
        flags["--limit"] = "3"  # a case still to ask: the preflight would ask the server
        refused = cli("generate", *[item for pair in flags.items() for item in pair])
        assert (server.requests, server.gets) == asked
    assert refused.exit_code == 2
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and "holds results of another configuration" in lines[0]
    assert "--overwrite" in lines[0] and "--name" in lines[0]
    assert snapshot(results) == before


def test_the_same_configuration_resumes_and_overwrite_takes_the_new_one(
    fetched_home: Path, tmp_path: Path
) -> None:
    results = tmp_path / "r"
    with FakeOpenAI() as server:
        first = ["--model", "m", "--base-url", server.base_url, "--categories",
                 "simple_python", "--limit", "2", "--result-dir", str(results)]
        assert cli("generate", *first).exit_code == 0
        again = cli("generate", *first)
        assert again.exit_code == 0 and "asked 0 case(s)" in again.stderr
        fresh = cli("generate", *first, "--temperature", "0.5", "--overwrite")
        assert fresh.exit_code == 0 and "asked 2 case(s)" in fresh.stderr
    manifest = json.loads((results / "m-FC" / "model.json").read_text())
    assert manifest["sampling"]["temperature"] == 0.5


def hermes(request: dict[str, Any]) -> dict[str, Any]:
    """A model served without a tool parser: the call arrives as Hermes text."""
    name = request["tools"][0]["function"]["name"]
    return {"content": f'<tool_call>\n{{"name": "{name}", "arguments": {{}}}}\n</tool_call>'}


def test_tool_call_format_parses_text_calls(fetched_home: Path, tmp_path: Path) -> None:
    with FakeOpenAI(hermes) as server:
        result = cli("generate", "--model", "m", "--base-url", server.base_url,
                     "--categories", "simple_python", "--tool-call-format", "hermes",
                     "--top-p", "0.5", "--max-tokens", "64", "--extra-body", '{"top_k": 1}',
                     "--result-dir", str(tmp_path / "r"), "--quiet")
    assert result.exit_code == 0, result.output
    path = tmp_path / "r" / "m-FC" / "non_live" / "BFCL_v4_simple_python_result.json"
    first = json.loads(path.read_text().splitlines()[0])
    assert first["result"] == [{"calculate_triangle_area": "{}"}]
    assert first["raw_text"].startswith("<tool_call>")
    manifest = json.loads((tmp_path / "r" / "m-FC" / "model.json").read_text())
    assert manifest["sampling"] == {"temperature": 0.001, "top_p": 0.5, "max_tokens": 64,
                                    "extra_body": {"top_k": 1}}


def test_requests_carry_the_sampling_parameters(fetched_home: Path, tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []

    def record(request: dict[str, Any]) -> dict[str, Any]:
        seen.append(request)
        return {"content": "[f(a=1)]"}

    with FakeOpenAI(record) as server:
        cli("generate", "--model", "my/model", "--mode", "prompt", "--base-url", server.base_url,
            "--base-url", server.base_url, "--categories", "irrelevance", "--temperature", "0.7",
            "--extra-body", '{"seed": 3}', "--result-dir", str(tmp_path / "r"), "--quiet")
    assert len(seen) == 240
    request = seen[0]
    assert request["model"] == "my/model" and request["temperature"] == 0.7
    assert request["seed"] == 3 and "tools" not in request
    assert request["messages"][0]["role"] == "system"
    assert (tmp_path / "r" / "my_model" / "non_live").is_dir()


def test_rich_progress_draws(tmp_path: Path) -> None:
    from rich.console import Console

    from fcbench.cli.run import RichProgress
    from fcbench.core import categories
    from fcbench.results.store import CategoryStore
    from fcbench.runner.generate import GenerationJob

    buffer = io.StringIO()
    progress = RichProgress(Console(file=buffer, force_terminal=True, width=150))
    job = GenerationJob(categories.get("simple_python"), CategoryStore(tmp_path / "x"), [], 10, 4)
    progress.start([job])
    job.stats.done, job.stats.retries, job.stats.errors = 3, 2, 1
    progress.update(job)
    progress.stop()
    text = buffer.getvalue()
    assert "simple_python" in text and "7/10" in text and "retries 2" in text


def test_rich_progress_shows_a_batch_before_its_first_case(tmp_path: Path) -> None:
    """Issue 33 item 3: a local model's first batch shows its tokens so far and seconds,
    though no case of the category has finished yet (no update came)."""
    from rich.console import Console

    from fcbench.cli.run import RichProgress
    from fcbench.core import categories
    from fcbench.core.model import TestCase
    from fcbench.results.store import CategoryStore
    from fcbench.runner.generate import GenerationJob

    buffer = io.StringIO()
    progress = RichProgress(Console(file=buffer, force_terminal=True, width=200))
    cases = [TestCase("simple_python_0", "simple_python", [[]], [], None)]
    job = GenerationJob(categories.get("simple_python"), CategoryStore(tmp_path / "x"), cases,
                        1, 0)
    later = GenerationJob(categories.get("multiple"), CategoryStore(tmp_path / "y"),
                          [TestCase("multiple_0", "multiple", [[]], [], None)], 1, 0)
    progress.start([job, later])
    progress.activity("generating 1 case(s): 57 token(s) so far, 12 s")
    progress.tick()
    progress.stop()
    drawn = buffer.getvalue().splitlines()
    assert any("simple_python" in line and "57 token(s) so far, 12 s" in line for line in drawn)
    assert not any("multiple" in line and "token(s) so far" in line for line in drawn)


def test_the_old_output_format_flag_still_works_and_warns(fetched_home: Path,
                                                          tmp_path: Path) -> None:
    with FakeOpenAI(hermes) as server:
        result = CliRunner().invoke(main, [
            "generate", "--model", "m", "--base-url", server.base_url, "--limit", "2",
            "--categories", "simple_python", "--output-format", "hermes",
            "--result-dir", str(tmp_path / "r"), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "--output-format is now --tool-call-format" in result.stderr
    path = tmp_path / "r" / "m-FC" / "non_live" / "BFCL_v4_simple_python_result.json"
    first = json.loads(path.read_text().splitlines()[0])
    assert first["result"] == [{"calculate_triangle_area": "{}"}]


@pytest.mark.parametrize("args", [["generate", "--help"], ["run", "--help"]])
def test_help(args: list[str]) -> None:
    result = cli(*args)
    assert result.exit_code == 0 and "--concurrency" in result.output
    assert "--output-format" not in result.output  # the deprecated alias is hidden


def _sections(text: str) -> dict[str, list[str]]:
    """`--help`'s sections: title -> the flags listed under it, in order."""
    sections: dict[str, list[str]] = {}
    current: list[str] = []
    for line in text.splitlines():
        if line and not line.startswith(" ") and line.endswith(":"):
            current = sections.setdefault(line[:-1], [])
        elif line.startswith("  -"):
            current.append(line.split()[0].split(",")[0].rstrip(","))
    return sections


def test_run_help_lists_the_required_flag_first_then_the_sections_in_order() -> None:
    from fcbench.cli.flags import RUN_GROUPS

    sections = _sections(cli("run", "--help").output)
    assert list(sections) == ["Required", *RUN_GROUPS, "Other options"]
    assert sections["Required"] == ["--model"]
    expected = {"Model and endpoint": "--backend", "Selection": "--categories",
                "Sampling": "--temperature", "Run control": "--concurrency",
                "Cache": "--cache-scope", "Serve": "--serve-cmd", "Web search": "--web-provider",
                "Exec": "--exec-backend", "Output": "--result-dir"}
    for title, flag in expected.items():
        assert flag in sections[title], title
    assert sections["Other options"] == ["-h"]  # -h, --help
    generate = _sections(cli("generate", "--help").output)
    assert "Exec" not in generate and generate["Required"] == ["--model"]


def test_ground_truth_exec_self_check_counts_skipped_apart(
    fetched_home: Path, tmp_path: Path
) -> None:
    out = ["--result-dir", str(tmp_path / "r"), "--score-dir", str(tmp_path / "s")]
    result = cli("run", "--model", "ground-truth", "--categories", "exec_simple", *out)
    assert result.exit_code == 0, result.output
    assert "fail 0 case(s)" in result.output
    assert "(38 executable case(s) skipped" in result.output
    resumed = cli("generate", "--model", "ground-truth", "--categories", "exec_simple", *out)
    assert "asked 0 case(s)" in resumed.output and "100 already done" in resumed.output
    replay = cli("run", "--model", "ground-truth", "--categories", "exec_simple",
                 "--exec-backend", "replay", *out)
    assert replay.exit_code == 2
    assert replay.output.strip().splitlines() == [
        "fcbench: error: --exec-backend replay needs --exec-replay-dir, a folder of recorded "
        "responses (got None)"]


def closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_nothing_listening_fails_at_once_naming_the_url(fetched_home: Path, tmp_path: Path) -> None:
    import time

    url = f"http://127.0.0.1:{closed_port()}/v1"
    started = time.monotonic()
    result = cli("generate", "--model", "m", "--base-url", url, "--categories", "simple_python",
                 "--result-dir", str(tmp_path / "r"))
    assert time.monotonic() - started < 10
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and url in lines[0] and "connection refused" in lines[0]
    assert lines[0].startswith("fcbench: error: cannot reach ")
    assert not (tmp_path / "r").exists()  # nothing written before the check


def test_a_refused_key_on_every_request_stops_early(fetched_home: Path, tmp_path: Path) -> None:
    with FakeOpenAI(api_key="secret") as server:
        result = cli("generate", "--model", "m", "--base-url", server.base_url, "--categories",
                     "simple_python", "--no-preflight", "--concurrency", "4", "--stop-after", "20",
                     "--result-dir", str(tmp_path / "r"))
        asked = server.requests
    assert result.exit_code == 1
    assert 20 <= asked <= 20 + 4
    assert "fcbench: error: stopped early: the first 20 cases all failed with: HTTP 401" \
        in result.stderr
    assert f"HTTP 401: Incorrect API key provided × {asked}" in result.stderr
    assert (f"; {asked} of 400 case(s) were asked, {400 - asked} were not; 0 of 400 case(s) "
            "are done. Fix the cause and resume") in result.stderr
    manifest = json.loads((tmp_path / "r" / "m-FC" / "model.json").read_text())
    assert manifest["runs"][-1]["errors_by_reason"] == {
        "HTTP 401: Incorrect API key provided": asked}


def test_preflight_catches_the_refused_key_and_the_missing_v1(fetched_home: Path,
                                                              tmp_path: Path) -> None:
    with FakeOpenAI(api_key="secret", prefix="/v1") as server:
        refused = cli("generate", "--model", "m", "--base-url", server.base_url,
                      "--categories", "simple_python", "--result-dir", str(tmp_path / "r"))
        assert server.requests == 0
    assert refused.exit_code == 2
    assert "refused the API key (HTTP 401" in refused.stderr
    assert "the key is read from OPENAI_API_KEY" in refused.stderr
    with FakeOpenAI(prefix="/v1") as server:
        root = f"http://127.0.0.1:{server.port}"
        no_v1 = cli("generate", "--model", "m", "--base-url", root, "--categories",
                    "simple_python", "--result-dir", str(tmp_path / "r"))
    assert no_v1.exit_code == 2 and f"try {root}/v1" in no_v1.stderr


def test_an_unset_key_is_named_at_once(fetched_home: Path, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "FCBENCH_NO_SUCH_KEY"):
        monkeypatch.delenv(name, raising=False)
    out = ["--categories", "simple_python", "--result-dir", str(tmp_path / "r")]
    remote = cli("generate", "--model", "m", "--base-url", "https://api.example.invalid/v1",
                 *out)
    assert remote.exit_code == 2 and "set OPENAI_API_KEY" in remote.stderr
    claude = cli("generate", "--model", "claude", "--backend", "anthropic", *out)
    assert claude.exit_code == 2 and "set ANTHROPIC_API_KEY" in claude.stderr
    named = cli("generate", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
                "--api-key-env", "FCBENCH_NO_SUCH_KEY", *out)
    assert named.exit_code == 2 and "FCBENCH_NO_SUCH_KEY: the variable is not set" in named.stderr


def test_a_smoke_run_of_every_category(fetched_home: Path, tmp_path: Path) -> None:
    """A `--limit 3` run of every category end to end. Its speed is measured by
    benchmarks/bench_generate.py, not asserted here: a loaded machine took 40-130 s."""
    result = cli("run", "--model", "ground-truth", "--limit", "3", "--categories", "all",
                 "--result-dir", str(tmp_path / "r"), "--score-dir", str(tmp_path / "s"))
    assert result.exit_code == 0, result.output
    folder = tmp_path / "r" / "ground-truth-FC"
    entries = {path.name: [json.loads(x) for x in path.read_text().splitlines()]
               for path in folder.rglob("*_result.json")}
    prerequisites = {name for name in entries if "_prereq_" in name}
    assert len(entries) > 20 and prerequisites
    for name, found in entries.items():
        if name not in prerequisites:
            assert len(found) == 3, name
    # a memory question's prerequisite conversations come along, and only those
    from fcbench.dataset.load import load_category
    from fcbench.runner.agentic import question_dependencies

    linked = question_dependencies(load_category("memory_kv"), load_category("memory_kv_prereq"))
    questions = {c.id: c for c in linked}
    needed = {d for e in entries["BFCL_v4_memory_kv_result.json"]
              for d in questions[e["id"]].extras.get("depends_on", [])}
    assert {e["id"] for e in entries["BFCL_v4_memory_kv_prereq_result.json"]} == needed
    assert "simple_python" in result.stdout and "100.00*" in result.stdout
    assert "Smoke run (--limit 3)" in result.stderr
    board = json.loads((tmp_path / "s" / "leaderboard.json").read_text())["models"][0]
    assert board["partial"] and "simple_python" in board["partial_categories"]
    assert (tmp_path / "s" / "report.html").is_file()  # written unless --no-report
    header = json.loads((tmp_path / "s" / "ground-truth-FC" / "non_live" /
                         "BFCL_v4_simple_python_score.json").read_text().splitlines()[0])
    assert header == {"accuracy": 1.0, "correct_count": 3, "total_count": 3}
    sampled = cli("generate", "--model", "ground-truth", "--sample", "2", "--seed", "7",
                  "--categories", "multiple", "--result-dir", str(tmp_path / "r2"))
    assert sampled.exit_code == 0
    again = cli("generate", "--model", "ground-truth", "--sample", "2", "--seed", "7",
                "--categories", "multiple", "--result-dir", str(tmp_path / "r3"))
    first, second = (p / "ground-truth-FC" / "non_live" / "BFCL_v4_multiple_result.json"
                     for p in (tmp_path / "r2", tmp_path / "r3"))
    assert again.exit_code == 0
    assert [json.loads(x)["id"] for x in first.read_text().splitlines()] == \
        [json.loads(x)["id"] for x in second.read_text().splitlines()]


def test_ids_choose_the_categories_too(fetched_home: Path, tmp_path: Path) -> None:
    result = cli("run", "--model", "ground-truth", "--ids", "simple_python_3,multiple_10",
                 "--result-dir", str(tmp_path / "r"), "--score-dir", str(tmp_path / "s"),
                 "--no-report")
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "s" / "report.html").exists()
    found = sorted(p.name for p in (tmp_path / "r").rglob("*_result.json"))
    assert found == ["BFCL_v4_multiple_result.json", "BFCL_v4_simple_python_result.json"]
    unknown = cli("generate", "--model", "ground-truth", "--ids", "simple_python_99999",
                  "--result-dir", str(tmp_path / "r"))
    assert unknown.exit_code == 2 and "simple_python_99999" in unknown.stderr
    clash = cli("generate", "--model", "ground-truth", "--limit", "2", "--sample", "2",
                "--result-dir", str(tmp_path / "r"))
    assert clash.exit_code == 2 and "cannot be combined" in clash.stderr
    empty = cli("generate", "--model", "ground-truth", "--categories", "",
                "--result-dir", str(tmp_path / "r"))
    assert empty.exit_code == 2 and "names no category (it is empty)" in empty.stderr


def test_the_response_cache_belongs_to_a_server(fetched_home: Path, tmp_path: Path) -> None:
    """Two loopback servers under one model name: the second is asked, not answered from the
    first one's replies; runs that declare endpoints interchangeable share them."""
    def generate(server: FakeOpenAI, name: str, *more: str) -> Any:
        return cli("generate", "--model", "m", "--base-url", server.base_url, "--cache", "auto",
                   "--categories", "simple_python", "--limit", "2", "--name", name,
                   "--result-dir", str(tmp_path / "r"), *more)

    with FakeOpenAI() as first, FakeOpenAI() as second:
        assert generate(first, "a").exit_code == 0 and first.requests == 2
        assert generate(second, "b").exit_code == 0
        assert second.requests == 2  # another server: asked afresh
        assert generate(first, "c", "--cache-scope", "model").exit_code == 0
        assert first.requests == 4  # endpoint-scoped entries are not the shared ones
        shared = generate(second, "d", "--cache-scope", "model")
        assert shared.exit_code == 0 and second.requests == 2
    assert "cache: 2 hit(s), 0 miss(es)" in shared.stderr


def test_a_dripping_or_huge_reply_is_a_recorded_error_in_bounded_time(
    fetched_home: Path, tmp_path: Path
) -> None:
    """`--timeout` is the whole request's deadline: a server sending one byte every 0.5 s is
    cut off at 3 s (it hung before: no single read ever waits long enough to time out); a
    50 MB reply is refused by `--max-reply-mb` and not kept."""
    import time

    from hostile.endpoints import HostileEndpoint

    with HostileEndpoint(drip_every=0.5, bomb_bytes=1 << 20) as server:
        runs = {}
        for kind, extra in (("huge", []), ("drip", ["--timeout", "3"])):
            start = time.perf_counter()
            result = cli("generate", "--model", "m", "--base-url", server.url(kind),
                         "--categories", "simple_python", "--limit", "1", "--mode", "prompt",
                         "--max-attempts", "1", "--no-preflight", "--stop-after", "0", "-q",
                         "--result-dir", str(tmp_path / kind), *extra)
            runs[kind] = (result, time.perf_counter() - start)
    drip, drip_seconds = runs["drip"]
    print({k: round(s, 2) for k, (_, s) in runs.items()})
    assert drip.exit_code == 1 and 2.9 <= drip_seconds <= 7, (drip_seconds, drip.output)
    for kind, (result, _) in runs.items():
        [file] = (tmp_path / kind).rglob("*_result.json")
        [entry] = [json.loads(line) for line in file.read_text().splitlines()]
        assert file.stat().st_size < 10_000, kind
        words = "within 3 s" if kind == "drip" else "10,000,000-byte cap"
        assert words in json.dumps(entry), entry
        assert "Traceback" not in result.output


def test_a_near_miss_of_a_known_model_name_is_suggested(fetched_home: Path,
                                                        tmp_path: Path) -> None:
    out = ["--categories", "simple_python", "--result-dir", str(tmp_path / "r")]
    typo = cli("generate", "--model", "ground-truh", *out)
    assert typo.exit_code == 2
    assert typo.stderr.strip().splitlines() == [
        "fcbench: error: no endpoint: pass --base-url URL (or set OPENAI_BASE_URL) "
        "(did you mean ground-truth?)"]
    registry = cli("generate", "--model", "Qwen/Qwen3-8b", *out)
    assert "(did you mean Qwen/Qwen3-8B?)" in registry.stderr
    far = cli("generate", "--model", "gpt-4o", *out)
    assert far.exit_code == 2 and "did you mean" not in far.stderr
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(("url", "fault"), [
    ("api.example.invalid/v1", "no http:// or https:// before the host"),
    ("https//api.example.invalid/v1", "no http:// or https:// before the host"),
    ("https://api.example.invalid:99999/v1", "the port is not a number from 1 to 65535"),
    ("ftp://api.example.invalid/v1", "the scheme 'ftp'"),
])
def test_a_malformed_url_is_named_before_the_missing_key(
        fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        url: str, fault: str) -> None:
    """A remote URL needs a key; when it is malformed too, the URL is the thing to fix first
    (a key would not make it work)."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = cli("generate", "--model", "m", "--base-url", url, "--categories", "simple_python",
                 "--result-dir", str(tmp_path / "r"))
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"fcbench: error: --base-url {url}: {fault}")
    assert "OPENAI_API_KEY" not in result.stderr
    assert not (tmp_path / "r").exists()


def test_piped_notes_are_whole_lines_and_no_line_ends_on_a_dangling_colon(
        fetched_home: Path, tmp_path: Path) -> None:
    """Piped (not a terminal), a note under the table is one whole line, never broken at the
    table's width; a heading line ends with `:` only when lines follow it."""
    from fcbench.report.table import FORMULA_NOTE

    result = cli("run", "--model", "ground-truth", "--categories", "simple_python", "--limit",
                 "5", "--result-dir", str(tmp_path / "r"), "--score-dir", str(tmp_path / "s"))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert FORMULA_NOTE in lines
    assert any(line.startswith("* partial: ") and line.endswith("such categories.")
               for line in lines)
    health = [line for line in lines if line.startswith("Self-check (fc mode)")]
    assert len(health) == 1 and "fail 0 case(s)" in health[0] and health[0].endswith(").")
    for line, after in zip(lines, [*lines[1:], ""], strict=True):
        assert not line.endswith(":") or after.startswith(" "), line


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_every_file_written_gets_the_umasks_mode(fetched_home: Path, tmp_path: Path,
                                                 umask: int) -> None:
    """`fcbench_usage.json` and `export -o FILE` were once 0600 (a temporary file's mode)
    beside 0644 files: every file a run, its scoring and an export write is 0666 less the
    umask, as `open(path, "w")` would make it."""
    import os

    out = tmp_path / "out"
    previous = os.umask(umask)
    try:
        ran = cli("run", "--model", "ground-truth", "--categories", "simple_python", "--limit",
                  "3", "--result-dir", str(out / "r"), "--score-dir", str(out / "s"))
        assert ran.exit_code == 0, ran.output
        exported = cli("export", str(out / "s"), "--result-dir", str(out / "r"), "-o",
                       str(out / "export.json"))
        assert exported.exit_code == 0, exported.output
    finally:
        os.umask(previous)
    modes = {str(path.relative_to(out)): oct(path.stat().st_mode & 0o777)
             for path in out.rglob("*") if path.is_file()}
    assert "export.json" in modes and "s/ground-truth-FC/fcbench_usage.json" in modes
    assert {name for name, mode in modes.items() if mode != oct(0o666 & ~umask)} == set(), modes


def test_a_second_ctrl_c_exits_at_once_while_a_batch_thread_lives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 33 item 3: the interpreter would wait for (or tear down under) a local model's
    batch thread still in a forward pass; the CLI leaves through os._exit(130) then, and
    through the ordinary SystemExit(130) otherwise."""
    import os
    import threading

    from fcbench.cli import run as run_cli
    from fcbench.models.hf_local import THREAD_NAME

    exits: list[int] = []
    monkeypatch.setattr(os, "_exit", exits.append)  # the real one would end pytest
    with pytest.raises(SystemExit) as plain:
        run_cli._exit_interrupted()
    assert plain.value.code == 130 and exits == []
    release = threading.Event()
    busy = threading.Thread(target=release.wait, name=THREAD_NAME, daemon=True)
    busy.start()
    try:
        with pytest.raises(SystemExit):  # the stand-in returns; sys.exit follows it
            run_cli._exit_interrupted()
    finally:
        release.set()
        busy.join()
    assert exits == [130]
