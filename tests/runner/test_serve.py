"""A server started for the run: its command, its health check, and that it always stops.

The stand-in server is the tests' own OpenAI-compatible server run as a script
(`tests/fake_openai.py --port N`), as a `--serve-cmd` and behind a fake `vllm` command.
"""

from __future__ import annotations

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

from fcbench.runner.serve import (
    ServeError,
    ServePlan,
    free_port,
    plan_command,
    plan_engine,
    serve_environment,
    serving,
    tool_call_parser,
)

from .stand_in_engine import stand_in_vllm

TESTS = Path(__file__).resolve().parents[1]
FAKE = TESTS / "fake_openai.py"
STAND_IN = f"{sys.executable} {FAKE} --port {{port}} --model {{model}}"


def cli(*args: str) -> Any:
    from fcbench.cli import main

    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def alive(pid: int, patience: float = 3.0) -> bool:
    """Whether the process still runs after `patience` seconds (a zombie waiting for its
    reaper is dead: it holds nothing)."""
    deadline = time.monotonic() + patience
    while True:
        try:
            os.kill(pid, 0)
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (ProcessLookupError, FileNotFoundError):
            return False
        if state == "Z":
            return False
        if time.monotonic() > deadline:
            return True
        time.sleep(0.05)


def served_pids(log: Path) -> list[int]:
    return [int(m) for m in re.findall(r"# fcbench: pid (\d+)", log.read_text())]


@pytest.mark.parametrize("model, engine, parser", [
    ("Qwen/Qwen3-8B", "vllm", "hermes"), ("Qwen/Qwen3-8B", "sglang", "qwen25"),
    ("meta-llama/Llama-3.1-8B-Instruct", "vllm", "llama3_json"),
    ("mistralai/Mistral-7B-Instruct-v0.3", "sglang", "mistral"),
    ("Qwen/Qwen3-Coder-30B-A3B-Instruct", "vllm", "qwen3_coder"),
    ("openai/gpt-oss-20b", "vllm", "openai"),
])
def test_parser_from_the_model_family(model: str, engine: str, parser: str) -> None:
    assert tool_call_parser(engine, model) == parser


def test_unknown_family_asks_for_a_parser() -> None:
    with pytest.raises(ServeError, match="--tool-call-parser"):
        tool_call_parser("vllm", "acme/unheard-of-7b")
    with pytest.raises(ServeError, match="--tool-call-parser"):
        tool_call_parser("sglang", "ibm-granite/granite-3.3-8b-instruct")  # none in SGLang


def test_commands() -> None:
    plan = plan_command("serve --port {port} --name {model} --json '{\"a\": 1}'", "m")
    port = plan.base_url.split(":")[2].split("/")[0]
    assert plan.command == ("serve", "--port", port, "--name", "m", "--json", '{"a": 1}')
    assert plan.base_url == f"http://127.0.0.1:{port}/v1"
    with pytest.raises(ServeError, match=r"put \{port\}"):
        plan_command("serve", "m")
    assert plan_command("serve", "m", base_url="http://127.0.0.1:5/v1").base_url.endswith(":5/v1")
    with pytest.raises(ServeError, match="cannot split"):
        plan_command("serve 'unclosed {port}", "m")


def test_a_missing_engine_is_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ServeError, match="no `vllm` command on PATH"):
        plan_engine("vllm", "Qwen/Qwen3-8B")


def test_waits_for_the_server_then_stops_it(tmp_path: Path) -> None:
    port = free_port()
    command = (sys.executable, str(FAKE), "--port", str(port), "--start-after", "1")
    plan = ServePlan("server", command, f"http://127.0.0.1:{port}/v1", 30)
    log = tmp_path / "serve.log"
    started = time.monotonic()
    with serving(plan, log) as server:
        assert time.monotonic() - started >= 1  # it waited for the port to answer
        pid = server.process.pid
        assert alive(pid, patience=0)
    assert not alive(pid) and server.process.returncode is not None
    assert served_pids(log) == [pid] and "http://127.0.0.1" in log.read_text()


def test_a_server_that_dies_or_never_answers(tmp_path: Path) -> None:
    dies = ServePlan("server", (sys.executable, "-c", "print('no GPU'); raise SystemExit(3)"),
                     "http://127.0.0.1:9/v1", 30)
    died = r"exited with status 3 before it was ready; its log: .*serve\.log \(last line: no GPU\)"
    with pytest.raises(ServeError, match=died), serving(dies, tmp_path / "serve.log"):
        pass
    silent = ServePlan("server", (sys.executable, "-c", "import time; time.sleep(60)"),
                       f"http://127.0.0.1:{free_port()}/v1", 1)
    with pytest.raises(ServeError, match="did not answer"), serving(silent, tmp_path / "s.log"):
        pass
    assert not any(alive(p) for p in served_pids(tmp_path / "s.log"))


def test_run_with_a_serve_cmd(fetched_home: Path, tmp_path: Path) -> None:
    result = cli("run", "--model", "m", "--serve-cmd", STAND_IN, "--categories",
                 "simple_python", "--limit", "3", "--result-dir", str(tmp_path / "r"),
                 "--score-dir", str(tmp_path / "s"))
    assert result.exit_code == 0, result.output
    log = tmp_path / "r" / "m-FC" / "serve.log"
    pids = served_pids(log)
    assert len(pids) == 1 and not alive(pids[0])
    path = tmp_path / "r" / "m-FC" / "non_live" / "BFCL_v4_simple_python_result.json"
    assert len(path.read_text().splitlines()) == 3
    manifest = json.loads((tmp_path / "r" / "m-FC" / "model.json").read_text())
    assert manifest["endpoints"][0].startswith("http://127.0.0.1:")
    again = cli("generate", "--model", "m", "--serve-cmd", STAND_IN, "--categories",
                "simple_python", "--limit", "3", "--result-dir", str(tmp_path / "r"))
    assert again.exit_code == 0 and "asked 0 case(s)" in again.stderr
    assert served_pids(log) == pids  # nothing to ask: no server started


def test_a_served_prompt_format_run_twice(fetched_home: Path, tmp_path: Path) -> None:
    """Issue 25 item 1: `--serve-cmd` with `--prompt-format` decides prompt mode once, so the
    second identical command resumes the folder the first one wrote (it used to read `fc`
    from the settings and refuse the folder's prompt results)."""
    command = ["generate", "--model", "gemma-3-270m", "--prompt-format", "gemma",
               "--serve-cmd", STAND_IN, "--categories", "simple_python", "--limit", "1",
               "--max-tokens", "16", "--result-dir", str(tmp_path / "r")]
    first = cli(*command)
    assert first.exit_code == 0, first.stderr
    folder = tmp_path / "r" / "gemma-3-270m"
    assert json.loads((folder / "model.json").read_text())["mode"] == "prompt"
    again = cli(*command)
    assert again.exit_code == 0, again.stderr
    assert "asked 0 case(s)" in again.stderr and "1 already done" in again.stderr
    more = cli(*command, "--limit", "2")  # the last --limit wins: one more case, served
    assert more.exit_code == 0, more.stderr
    assert "asked 1 case(s)" in more.stderr
    result = folder / "non_live" / "BFCL_v4_simple_python_result.json"
    assert len(result.read_text().splitlines()) == 2
    assert not (tmp_path / "r" / "gemma-3-270m-FC").exists()


def test_the_server_stops_when_the_run_fails(fetched_home: Path, tmp_path: Path) -> None:
    other = f"{sys.executable} {FAKE} --port {{port}} --model another-model"
    result = cli("generate", "--model", "m", "--serve-cmd", other, "--categories",
                 "simple_python", "--limit", "3", "--result-dir", str(tmp_path / "r"))
    assert result.exit_code == 2
    assert "model 'm' is not served at http://127.0.0.1:" in result.stderr
    assert "it serves: another-model" in result.stderr
    pids = served_pids(tmp_path / "r" / "m-FC" / "serve.log")
    assert pids and not any(alive(p) for p in pids)


def _as_from_a_terminal() -> None:
    """In the child before exec: Ctrl-C acts as it does for a command typed in a terminal.
    A test run started in the background (`pytest ... &`, nohup, some CI runners) hands its
    children SIGINT ignored, and Python then never raises KeyboardInterrupt: the signal the
    test sends would be lost and the run would go on to its end."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_mid_run(tmp_path: Path, fetched_home: Path, **pipes: Any) -> tuple[
        subprocess.Popen[str], Path, Path]:
    """`fcbench generate` serving a wrapper shell whose server child ignores SIGTERM (an
    engine and a stubborn worker), returned once the run is certainly mid-way: the server
    answers two cases, then holds the third unanswered, and both answers are saved. Returns
    the process, the run folder and the file holding the server child's pid."""
    child_pid = tmp_path / "child.pid"
    stubborn = tmp_path / "stubborn.py"
    stubborn.write_text(
        "import runpy, signal, sys\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        f"sys.argv = [{str(FAKE)!r}, *sys.argv[1:]]\n"
        f"runpy.run_path({str(FAKE)!r}, run_name='__main__')\n"
    )
    wrapper = (f"sh -c '{sys.executable} {stubborn} --port {{port}} --model m --hold-after 2 & "
               f"echo $! > {child_pid}; wait'")
    folder = tmp_path / "r" / "m-FC"
    env = {**os.environ, "FCBENCH_HOME": str(fetched_home)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "fcbench.cli", "generate", "--model", "m", "--serve-cmd",
         wrapper, "--categories", "simple_python", "--concurrency", "1", "--limit", "3",
         "--result-dir", str(tmp_path / "r")],
        env=env, text=True, preexec_fn=_as_from_a_terminal, **pipes,
    )
    result_file = folder / "non_live" / "BFCL_v4_simple_python_result.json"
    deadline = time.monotonic() + 60
    while not (result_file.is_file() and result_file.read_text().count("\n") >= 2):
        if proc.poll() is not None:
            _, stderr = proc.communicate()
            pytest.fail(f"fcbench ended before the signal (status {proc.returncode}): {stderr}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("the run never started")
        time.sleep(0.05)
    return proc, folder, child_pid


@pytest.mark.parametrize("sig, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_the_server_stops_on_ctrl_c_with_its_children(
    fetched_home: Path, tmp_path: Path, sig: signal.Signals, status: int
) -> None:
    """Ctrl-C or SIGTERM to fcbench mid-run: a wrapper shell and its server child that
    ignores SIGTERM (an engine and a stubborn worker) both go, and fcbench exits with the
    signal's status."""
    proc, folder, child_pid = start_mid_run(tmp_path, fetched_home, stdout=subprocess.PIPE,
                                            stderr=subprocess.PIPE)
    proc.send_signal(sig)
    try:
        _, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()  # a no-op once it ended; never left running after a failure
    assert proc.returncode == status, stderr
    if sig == signal.SIGINT:
        assert "every finished case is saved; resume with: fcbench generate --model m" in stderr
    wrapper_pid = served_pids(folder / "serve.log")[0]
    grandchild = int(child_pid.read_text())
    assert not alive(wrapper_pid) and not alive(grandchild)


def test_no_engine_outlives_a_killed_fcbench(fetched_home: Path, tmp_path: Path) -> None:
    """`kill -9` of fcbench mid-run: the watchdog stops the wrapper shell and its server
    child that ignores SIGTERM, within 10 s."""
    proc, folder, child_pid = start_mid_run(tmp_path, fetched_home,
                                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    proc.kill()
    proc.communicate()
    wrapper_pid = served_pids(folder / "serve.log")[0]
    grandchild = int(child_pid.read_text())
    assert not alive(wrapper_pid, patience=10) and not alive(grandchild, patience=10)


def test_serve_vllm_starts_the_engine_with_tool_calling(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stand-in `vllm` on PATH records its arguments and serves like the real one."""
    argv_file = stand_in_vllm(tmp_path, monkeypatch)
    result = cli("generate", "--model", "Qwen/Qwen3-8B", "--serve", "vllm", "--serve-args",
                 "--max-model-len 8192", "--categories", "simple_python", "--limit", "2",
                 "--result-dir", str(tmp_path / "r"))
    assert result.exit_code == 0, result.output
    argv = json.loads(argv_file.read_text())
    assert argv[:2] == ["serve", "Qwen/Qwen3-8B"]
    assert argv[-5:] == ["--enable-auto-tool-choice", "--tool-call-parser", "hermes",
                         "--max-model-len", "8192"]
    assert argv[argv.index("--host") + 1] == "127.0.0.1"
    pids = served_pids(tmp_path / "r" / "Qwen_Qwen3-8B-FC" / "serve.log")
    assert pids and not alive(pids[0])
    clash = cli("generate", "--model", "Qwen/Qwen3-8B", "--serve", "vllm", "--base-url",
                "http://127.0.0.1:1/v1", "--result-dir", str(tmp_path / "r"))
    assert clash.exit_code == 2 and "drop --base-url" in clash.stderr


def test_the_engine_gets_an_allow_listed_environment() -> None:
    environ = {"PATH": "/bin", "HOME": "/h", "LC_ALL": "C", "CUDA_VISIBLE_DEVICES": "0",
               "HF_HOME": "/hf", "VLLM_USE_V1": "1", "OPENAI_API_KEY": "k1",
               "SERPAPI_API_KEY": "k2", "RAPID_API_KEY": "k3", "AWS_SECRET_ACCESS_KEY": "k4",
               "MINE": "m", "FCBENCH_SERVE_ENV": "MINE, OTHER"}
    assert serve_environment(environ) == {
        "PATH": "/bin", "HOME": "/h", "LC_ALL": "C", "CUDA_VISIBLE_DEVICES": "0",
        "HF_HOME": "/hf", "VLLM_USE_V1": "1", "MINE": "m"}


def test_a_served_engine_cannot_print_a_key(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A wrapper printing the key variables into serve.log prints nothing of them."""
    keys = {"OPENAI_API_KEY": "served-openai-key-1", "SERPAPI_API_KEY": "served-serp-key-2",
            "OMDB_API_KEY": "served-omdb-key-3"}
    for variable, value in keys.items():
        monkeypatch.setenv(variable, value)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    shown = " ".join(f"{v}=${v}" for v in keys)
    wrapper = f"sh -c 'echo HF_HOME=$HF_HOME {shown}; exec {STAND_IN}'"
    result = cli("generate", "--model", "m", "--serve-cmd", wrapper, "--categories",
                 "simple_python", "--limit", "1", "--result-dir", str(tmp_path / "r"))
    assert result.exit_code == 0, result.output
    log = (tmp_path / "r" / "m-FC" / "serve.log").read_text()
    assert "OPENAI_API_KEY= " in log and f"HF_HOME={tmp_path / 'hf'}" in log  # it ran
    assert not any(value in log for value in keys.values())


ENGINE_PRINTS = r'''
import os, sys
print("settings: hf_token=" + os.environ["HF_TOKEN"], "vllm key", os.environ["VLLM_API_KEY"])
print("args:", " ".join(sys.argv[1:]), flush=True)
print("got header Authorization: Bearer " + sys.argv[2], file=sys.stderr)
print("auth Bearer engine-bearer-77 and Basic dXNlcjplbmdpbmUtcGFzcy0xMg==", file=sys.stderr)
print("known " + os.environ["HF_TOKEN"] + " " + sys.argv[3][11:] + " eof", file=sys.stderr)
raise SystemExit(3)
'''


def test_an_engine_s_own_output_is_masked_line_by_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 31 item 1: what the engine prints (its settings, arguments, the headers it got,
    on stdout and stderr) reaches serve.log and the error line masked: the values of its
    key-like variables and `--api-key`-like arguments, Bearer and Basic credentials."""
    from fcbench import redact

    monkeypatch.setattr(redact, "_extra_values", set())
    secrets = {"HF_TOKEN": "engine-hf-token-001", "VLLM_API_KEY": "engine-vllm-key-002"}
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    script = tmp_path / "engine.py"
    script.write_text(ENGINE_PRINTS)
    command = (sys.executable, str(script), "--api-key", "engine-arg-key-003",
               "--hf-token=engine-arg-token-004")
    plan = ServePlan("server", command, f"http://127.0.0.1:{free_port()}/v1", 30)
    log = tmp_path / "serve.log"
    with pytest.raises(ServeError) as failed, serving(plan, log):
        pass
    text = log.read_text()
    assert "args: --api-key *** --hf-token=***" in text and "eof" in text  # it printed
    assert "Bearer ***" in text and "Basic ***" in text
    values = [*secrets.values(), "engine-arg-key-003", "engine-arg-token-004",
              "engine-bearer-77", "dXNlcjplbmdpbmUtcGFzcy0xMg=="]
    assert [v for v in values if v in text or v in str(failed.value)] == []
    assert "known *** *** eof" in str(failed.value)  # the last line, as the log holds it


def test_engine_secrets_from_arguments_and_key_like_variables() -> None:
    from fcbench.runner.serve import engine_secrets

    command = ["vllm", "serve", "m", "--api-key", "a1", "--hf-token=t2", "--token", "t3",
               "--tokenizer", "tok", "--port", "9", "--api-key"]
    environment = {"HF_TOKEN": "h", "VLLM_API_KEY": "v", "AWS_SECRET": "s", "MY_TOKEN": "m",
                   "TOKENIZERS_PARALLELISM": "false", "HF_HOME": "/hf", "X_PASSWORD": ""}
    assert sorted(engine_secrets(command, environment)) == ["a1", "h", "m", "s", "t2", "t3",
                                                            "v"]


def test_the_health_check_of_a_base_url_with_credentials() -> None:
    """A `--serve-cmd` with `--base-url http://u:pw@127.0.0.1:P/v1?api_key=K`: urllib cannot
    send a userinfo (it took `u:pw@127.0.0.1:P` for a host and a bad port), so such a server
    was never seen ready and the run waited the whole start-up time (900 s)."""
    from fcbench.runner.serve import health_url

    assert health_url("http://u:pw@127.0.0.1:9/v1/?api_key=k") == "http://127.0.0.1:9/v1/models"
    assert health_url("http://TOKEN@127.0.0.1:9/v1") == "http://127.0.0.1:9/v1/models"
    assert health_url("http://127.0.0.1:9/v1") == "http://127.0.0.1:9/v1/models"


def test_a_detached_child_holding_the_output_pipe_does_not_hold_up_the_stop(
    tmp_path: Path,
) -> None:
    """The engine's output comes through a pipe now: a child that left its process group
    (setsid) keeps the pipe open after the group was stopped. The stop waits a few seconds
    for the last lines, then goes on (without closing the pipe under its blocked reader)."""
    port = free_port()
    command = ("sh", "-c", f"setsid sleep 60 & echo holder $!; exec {sys.executable} {FAKE} "
               f"--port {port}")
    plan = ServePlan("server", command, f"http://127.0.0.1:{port}/v1", 30)
    log = tmp_path / "serve.log"
    started = time.monotonic()
    try:
        with serving(plan, log, grace=5) as server:
            pass
        assert time.monotonic() - started < 30
        assert server.process.returncode is not None
    finally:
        for pid in re.findall(r"holder (\d+)", log.read_text()):
            os.kill(int(pid), signal.SIGKILL)


def test_an_endless_line_is_masked_in_pieces_without_cutting_a_secret(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A progress bar without newlines is read in `LINE_LIMIT` pieces: a secret across the
    cut is held back whole and masked; every byte else arrives, in order."""
    import io

    from fcbench import redact
    from fcbench.runner.serve import LINE_LIMIT, copy_masked

    monkeypatch.setattr(redact, "_extra_values", set())
    secret = "pump-secret-value-0123456789"
    redact.add_secret(secret)
    head = b"x" * (LINE_LIMIT - 10) + b" "
    text = head + secret.encode() + b" tail " + b"y" * 3 * LINE_LIMIT + b" " + secret.encode()
    log = io.BytesIO()
    copy_masked(io.BufferedReader(io.BytesIO(text)), log)  # type: ignore[arg-type]
    assert log.getvalue() == text.replace(secret.encode(), b"***")
