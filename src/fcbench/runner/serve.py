"""A local model in one command: start an OpenAI-compatible server, use it, always stop it.

`--serve vllm` / `--serve sglang` start the engine the user has installed (it is not a
dependency of fcbench) with what tool calling needs: vLLM's `--enable-auto-tool-choice` and a
`--tool-call-parser`, SGLang's `--tool-call-parser`, the parser chosen from the model's
family (`--tool-call-parser` overrides it, `--serve-args` adds anything else). `--serve-cmd
"..."` runs any server command instead; `{port}` and `{model}` in it are replaced by the port
fcbench picked and the model name.

Scale (`Parallelism`): `--tensor-parallel`, `--pipeline-parallel` and `--data-parallel` are
passed to the engine in its own words (vLLM `--tensor-parallel-size`, `--pipeline-parallel-size`,
`--data-parallel-size`; SGLang `--tp`, `--pp-size`, `--dp`), and `--serve-nodes N` spreads it
over N machines the engine's own way: vLLM on the Ray cluster this machine belongs to
(`--distributed-executor-backend ray`; `ray start` beforehand, as vLLM's multi-node guide
says), SGLang with `--nnodes N --node-rank 0 --dist-init-addr HOST:PORT` (this machine is rank
0 and serves HTTP; the other nodes run the same command with their own `--node-rank`, which
serve.log lists at its top: start them while rank 0 waits, within `--serve-timeout`).
fcbench schedules nothing itself.

The server runs as a child process in a session of its own (so a Ctrl-C in the terminal
reaches fcbench, which then stops it in order) with its output in a log file in the result
folder. fcbench waits until it answers on its model list (or exits, or the start-up time
runs out: one line naming the log), and when the run ends, however it ends (success, error,
Ctrl-C, SIGTERM), sends SIGTERM to the whole process group, then SIGKILL after a grace
period, so that no engine worker is left holding a GPU. When fcbench cannot (killed with
SIGKILL), a watchdog process started beside the server does it (`runner.watchdog`).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from fcbench import redact
from fcbench._atomic import open_append

ENGINES = ("vllm", "sglang")
DEFAULT_START_TIMEOUT = 900.0
"""Seconds an engine may take to load a model before fcbench gives up."""
STOP_GRACE = 20.0
"""Seconds between SIGTERM and SIGKILL when stopping the server."""
POLL_INTERVAL = 0.5
WATCHDOG_GRACE = 3.0
"""Seconds between SIGTERM and SIGKILL when the watchdog stops the server of a dead fcbench
(nothing waits for an orderly end then, and a GPU should be freed soon)."""

SERVE_ENV_NAMES = frozenset({
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TZ", "LANG", "LANGUAGE", "TMPDIR",
    "TMP", "TEMP", "PWD", "HOSTNAME", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME",
    "PYTHONUNBUFFERED", "LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH", "CC", "CXX",
    "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
    "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
    "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "TOKENIZERS_PARALLELISM", "OMP_NUM_THREADS",
    "MKL_NUM_THREADS", "MODELSCOPE_CACHE", "NUMBA_CACHE_DIR",
})
SERVE_ENV_PREFIXES = ("LC_", "XDG_", "CUDA_", "NVIDIA_", "CUDNN_", "NCCL_", "HF_", "HUGGINGFACE_",
                      "TRANSFORMERS_", "VLLM_", "SGLANG_", "TORCH", "PYTORCH_", "TRITON_",
                      "ROCM_", "HIP_", "HSA_", "ROCR_", "CONDA_", "OLLAMA_", "LLAMA_", "GGML_",
                      "FLASHINFER_", "XLA_", "TPU_", "NEURON_", "OPENBLAS_", "KMP_", "UV_", "PIP_")
"""What a served engine inherits of fcbench's environment: what it needs to find its
programs and libraries, its GPUs, its weights (Hugging Face, including the token for gated
models) and its own settings; not the API keys of other services fcbench holds (an engine
that logged `OPENAI_API_KEY` would write it into `serve.log`). `FCBENCH_SERVE_ENV` names more
variables to pass (comma-separated)."""
SERVE_ENV_VARIABLE = "FCBENCH_SERVE_ENV"

PARSERS: tuple[tuple[str, str, str | None], ...] = (
    # (pattern in the lower-cased model name, vLLM parser, SGLang parser); first match wins
    (r"qwen3-coder", "qwen3_coder", "qwen3_coder"),
    (r"qwen|qwq|hermes", "hermes", "qwen25"),
    (r"llama-?4", "llama4_pythonic", "pythonic"),
    (r"llama", "llama3_json", "llama3"),
    (r"mistral|mixtral|ministral|devstral|magistral", "mistral", "mistral"),
    (r"deepseek-v3\.1", "deepseek_v31", "deepseekv31"),
    (r"deepseek", "deepseek_v3", "deepseekv3"),
    (r"glm-?4", "glm45", "glm45"),
    (r"kimi-k2", "kimi_k2", "kimi_k2"),
    (r"gpt-oss", "openai", "gpt-oss"),
    (r"granite", "granite", None),
    (r"internlm", "internlm", None),
    (r"phi-4-mini", "phi4_mini_json", None),
    (r"xlam", "xlam", None),
)
"""The tool-call parser each engine has for a model family (the engines' documented names)."""


class ServeError(RuntimeError):
    """The server could not be started or did not become ready (one line: why, and its log)."""


@dataclass(frozen=True)
class ServePlan:
    """What to start and where it will answer."""

    name: str
    """`vllm`, `sglang` or `server` (a --serve-cmd)."""
    command: tuple[str, ...]
    base_url: str
    start_timeout: float = DEFAULT_START_TIMEOUT


def tool_call_parser(engine: str, model: str) -> str:
    """The engine's tool-call parser for the model's family (ServeError when none is known)."""
    lowered = model.lower()
    for pattern, vllm, sglang in PARSERS:
        if re.search(pattern, lowered):
            parser = vllm if engine == "vllm" else sglang
            if parser is not None:
                return parser
            break
    raise ServeError(f"no {engine} tool-call parser is known for {model}: pass "
                     "--tool-call-parser NAME (see the engine's documentation)")


def free_port() -> int:
    """A TCP port free on the loopback interface right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True)
class Parallelism:
    """How big the served engine is: GPUs per model copy (tensor x pipeline), copies (data
    parallel), machines (`nodes`; SGLang's rendezvous `dist_init_addr`). None: the engine's
    default."""

    tensor: int | None = None
    pipeline: int | None = None
    data: int | None = None
    nodes: int | None = None
    dist_init_addr: str | None = None

    def arguments(self, engine: str) -> list[str]:
        """The engine's own flags for these sizes (ServeError when they do not fit)."""
        if engine == "sglang":
            if (self.nodes or 1) > 1 and not self.dist_init_addr:
                raise ServeError("--serve sglang --serve-nodes N needs --serve-dist-init-addr "
                                 "HOST:PORT (this machine's address the other nodes reach)")
            if self.dist_init_addr and (self.nodes or 1) < 2:
                raise ServeError("--serve-dist-init-addr applies to --serve-nodes 2 or more")
            return _sizes((("--tp", self.tensor), ("--pp-size", self.pipeline),
                           ("--dp", self.data))) + (
                ["--nnodes", str(self.nodes), "--node-rank", "0", "--dist-init-addr",
                 str(self.dist_init_addr)] if (self.nodes or 1) > 1 else [])
        if self.dist_init_addr:
            raise ServeError("--serve-dist-init-addr is SGLang's; vLLM's nodes meet in a Ray "
                             "cluster (ray start on each, then --serve-nodes N)")
        return _sizes((("--tensor-parallel-size", self.tensor),
                       ("--pipeline-parallel-size", self.pipeline),
                       ("--data-parallel-size", self.data))) + (
            ["--distributed-executor-backend", "ray"] if (self.nodes or 1) > 1 else [])

    @property
    def given(self) -> bool:
        return any(v is not None for v in (self.tensor, self.pipeline, self.data, self.nodes,
                                           self.dist_init_addr))


def _sizes(pairs: Sequence[tuple[str, int | None]]) -> list[str]:
    found: list[str] = []
    for flag, value in pairs:
        if value is not None:
            if value < 1:
                raise ServeError(f"{flag} must be at least 1 (got {value})")
            found += [flag, str(value)]
    return found


def _check_not_twice(generated: Sequence[str], extra: Sequence[str]) -> None:
    """A size given by a flag and again in --serve-args: one line, not the engine's error."""
    given = {word.split("=")[0] for word in extra if word.startswith("--")}
    twice = [flag for flag in generated if flag.startswith("--") and flag in given]
    if twice:
        raise ServeError(f"--serve-args repeats {', '.join(twice)}, which fcbench's own "
                         "flag already sets; give it once")


def follower_command(plan: ServePlan, rank: int) -> tuple[str, ...]:
    """An SGLang multi-node command for another node: the same, with its `--node-rank`
    (fcbench starts rank 0 only: a launcher starts these on the other machines)."""
    words = list(plan.command)
    if "--node-rank" not in words:
        raise ServeError("not a multi-node SGLang command")
    words[words.index("--node-rank") + 1] = str(rank)
    return tuple(words)


def followers(plan: ServePlan) -> list[tuple[int, tuple[str, ...]]]:
    """An SGLang multi-node plan's other ranks and their commands (none otherwise): written
    at the top of serve.log, for the launcher of the other machines."""
    words = plan.command
    if "--nnodes" not in words or "--node-rank" not in words:
        return []
    nodes = int(words[words.index("--nnodes") + 1])
    return [(rank, follower_command(plan, rank)) for rank in range(1, nodes)]


def plan_engine(
    engine: str,
    model: str,
    *,
    model_path: Path | None = None,
    parser: str | None = None,
    extra_args: str | None = None,
    start_timeout: float = DEFAULT_START_TIMEOUT,
    parallel: Parallelism | None = None,
) -> ServePlan:
    """The command that serves `model` with vLLM or SGLang on a free loopback port, as
    big as `parallel` says."""
    port = free_port()
    weights = str(model_path) if model_path is not None else model
    chosen = parser or tool_call_parser(engine, model)
    if engine == "vllm":
        executable = shutil.which("vllm")
        if executable is None:
            raise ServeError("--serve vllm: no `vllm` command on PATH (pip install vllm, in "
                             "this environment or one on PATH), or use --serve-cmd")
        command = [executable, "serve", weights, "--served-model-name", model,
                   "--host", "127.0.0.1", "--port", str(port),
                   "--enable-auto-tool-choice", "--tool-call-parser", chosen]
    elif engine == "sglang":
        if importlib.util.find_spec("sglang") is None:
            raise ServeError("--serve sglang: sglang is not installed in this Python "
                             f"({sys.executable}); pip install sglang, or use --serve-cmd")
        command = [sys.executable, "-m", "sglang.launch_server", "--model-path", weights,
                   "--served-model-name", model, "--host", "127.0.0.1", "--port", str(port),
                   "--tool-call-parser", chosen]
    else:
        raise ServeError(f"--serve: unknown engine {engine!r} (one of {', '.join(ENGINES)})")
    sizes = (parallel or Parallelism()).arguments(engine)
    extra = _split(extra_args, "--serve-args")
    _check_not_twice(sizes, extra)
    command += sizes + extra
    return ServePlan(engine, tuple(command), f"http://127.0.0.1:{port}/v1", start_timeout)


def plan_command(
    text: str,
    model: str,
    *,
    base_url: str | None = None,
    start_timeout: float = DEFAULT_START_TIMEOUT,
) -> ServePlan:
    """A `--serve-cmd`: `{port}` (a free port fcbench picks) and `{model}` filled in."""
    if "{port}" not in text and not base_url:
        raise ServeError("--serve-cmd: put {port} in the command (fcbench picks a free port) "
                         "or pass --base-url where the server will answer")
    port = free_port()
    command = _split(text.replace("{port}", str(port)).replace("{model}", model), "--serve-cmd")
    if not command:
        raise ServeError("--serve-cmd is empty")
    return ServePlan("server", tuple(command), base_url or f"http://127.0.0.1:{port}/v1",
                     start_timeout)


@dataclass(frozen=True)
class ServeOptions:
    """The run's serve section (`--serve`, `--serve-cmd`, `--serve-args`,
    `--tool-call-parser`, `--serve-timeout`), used whole by `plan_server`."""

    engine: str | None = None
    """Start this engine (vllm, sglang) for the run."""
    command: str | None = None
    """Or start this server command (`{port}`, `{model}` filled in)."""
    extra_args: str | None = None
    parser: str | None = None
    """The engine's tool-call parser (default: from the model family)."""
    start_timeout: float = DEFAULT_START_TIMEOUT
    tensor_parallel: int | None = None
    """GPUs one model copy is split across, layer by layer (the engine's tensor parallel)."""
    pipeline_parallel: int | None = None
    """Pipeline stages one model copy is split into (across GPUs or nodes)."""
    data_parallel: int | None = None
    """Model copies the engine serves behind its one address."""
    nodes: int | None = None
    """Machines the engine spans (vLLM: a Ray cluster; SGLang: `dist_init_addr`)."""
    dist_init_addr: str | None = None
    """SGLang multi-node: HOST:PORT of this machine, where the other nodes meet it."""

    @property
    def parallel(self) -> Parallelism:
        return Parallelism(self.tensor_parallel, self.pipeline_parallel, self.data_parallel,
                           self.nodes, self.dist_init_addr)


def plan_server(
    model: str | None,
    options: ServeOptions,
    *,
    backend: str = "openai",
    base_urls: Sequence[str] = (),
    model_path: Path | None = None,
) -> ServePlan | None:
    """The server a run's `--serve` / `--serve-cmd` asks for (None without either; ServeError
    when the options do not fit together)."""
    engine, command = options.engine, options.command
    if engine is None and command is None:
        if options.parallel.given:
            raise ServeError("--tensor-parallel, --pipeline-parallel, --data-parallel and "
                             "--serve-nodes size a server fcbench starts: add --serve vllm "
                             "or --serve sglang")
        return None
    if engine is not None and command is not None:
        raise ServeError("--serve and --serve-cmd cannot be combined; pick one")
    if model is None or model == "ground-truth" or backend != "openai":
        raise ServeError("--serve and --serve-cmd start an OpenAI-compatible server: they "
                         "apply to a model name with --backend openai")
    if command is not None:
        if options.parallel.given:
            raise ServeError("--serve-cmd runs your command as written: put the parallel "
                             "sizes in it (--tensor-parallel and the like go with --serve)")
        return plan_command(command, model, base_url=base_urls[0] if base_urls else None,
                            start_timeout=options.start_timeout)
    if base_urls:
        raise ServeError("--serve picks the server's address itself: drop --base-url")
    return plan_engine(str(engine), model, model_path=model_path, parser=options.parser,
                       extra_args=options.extra_args, start_timeout=options.start_timeout,
                       parallel=options.parallel)


def _split(text: str | None, flag: str) -> list[str]:
    try:
        return shlex.split(text or "")
    except ValueError as exc:
        raise ServeError(f"{flag}: cannot split {text!r} into arguments ({exc})") from None


# --------------------------------------------------------------------------- running


class Server:
    """A started server process: its group, its log, how to wait for it and stop it."""

    def __init__(self, plan: ServePlan, log_path: Path) -> None:
        self.plan = plan
        self.log_path = log_path
        log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = os.fdopen(open_append(log_path), "ab")  # closed in stop()
        environment = serve_environment()
        for secret in engine_secrets(plan.command, environment):
            redact.add_secret(secret)  # masked here and wherever else the engine's reply goes
        header = f"# fcbench: {time.strftime('%Y-%m-%d %H:%M:%S')}: {shlex.join(plan.command)}\n"
        header += "".join(f"# fcbench: node {rank} runs: {shlex.join(command)}\n"
                          for rank, command in followers(plan))
        self._log.write(redact.text(header).encode())
        self._log.flush()
        try:
            self.process = subprocess.Popen(
                plan.command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, start_new_session=True, env=environment,
            )
        except OSError as exc:
            self._log.close()
            raise ServeError(f"cannot start {plan.command[0]}: {exc.strerror or exc}") from None
        self._log.write(f"# fcbench: pid {self.process.pid}\n".encode())
        self._log.flush()
        assert self.process.stdout is not None
        self._pump = threading.Thread(target=copy_masked, args=(self.process.stdout, self._log),
                                      name="fcbench-serve-log", daemon=True)
        self._pump.start()
        self._watchdog = start_watchdog(self.process.pid)

    def wait_ready(self) -> None:
        """Return once the server answers on its model list; ServeError if it exits first or
        the start-up time runs out."""
        deadline = time.monotonic() + self.plan.start_timeout
        health = health_url(self.plan.base_url)
        while True:
            code = self.process.poll()
            if code is not None:
                self._pump.join(PUMP_GRACE)  # its last words in the log before naming them
                raise ServeError(f"{self.plan.name} exited with status {code} before it was "
                                 f"ready{self._log_note()}")
            if answers(health):
                return
            if time.monotonic() > deadline:
                raise ServeError(f"{self.plan.name} did not answer at {health} within "
                                 f"{self.plan.start_timeout:.0f} s{self._log_note()}")
            time.sleep(POLL_INTERVAL)

    def stop(self, grace: float = STOP_GRACE) -> None:
        """SIGTERM to the process group, SIGKILL after `grace` seconds; leaves nothing."""
        try:
            if self.process.poll() is None:
                _signal_group(self.process.pid, signal.SIGTERM)
                try:
                    self.process.wait(grace)
                except subprocess.TimeoutExpired:
                    _signal_group(self.process.pid, signal.SIGKILL)
                    self.process.wait()
            _signal_group(self.process.pid, signal.SIGKILL)  # workers that outlived the leader
        finally:
            self._pump.join(PUMP_GRACE)  # the pipe ends when the group is gone
            if self.process.stdout is not None and not self._pump.is_alive():
                self.process.stdout.close()  # (not under a reader blocked in it: that waits)
            self._log.close()
            stop_watchdog(self._watchdog)

    def _log_note(self) -> str:
        last = _last_line(self.log_path)
        return f"; its log: {self.log_path}" + (f" (last line: {last})" if last else "")


KEY_LIKE_VARIABLE = re.compile(
    r"(?i)(?:^|_)(?:api_?key|access_?key|token|secret|password|passwd|credentials?)$")
"""Names of variables whose value is a credential (`HF_TOKEN`, `VLLM_API_KEY`,
`AWS_SECRET`, ...)."""
_ENGINE_ARGUMENT = re.compile(
    r"(?i)^--(?:[a-z0-9]+[-_])*(?:api[-_]?key|token|password|secret)(?:=(.*))?$")
PUMP_GRACE = 5.0
"""Seconds to wait for the last of the engine's output once its process group is gone."""
LINE_LIMIT = 1 << 16
"""Bytes of one output line masked at a time (an endless line is masked in pieces)."""
CARRY_LIMIT = 1 << 12
"""At most this much of a cut piece (its last word) is held back for the next one."""


def engine_secrets(command: Sequence[str], environment: Mapping[str, str]) -> list[str]:
    """What a served engine is given that is a credential: the value of every `--api-key X`
    (`--api-key=X`, `--hf-token X`, `--token X`) argument, and of every key-like variable of
    its environment (`HF_TOKEN`, `VLLM_API_KEY`, `*_API_KEY`, `*_TOKEN`, `*_SECRET`). An
    engine that logs its settings prints them; they are registered with `redact`."""
    found = [value for name, value in environment.items() if KEY_LIKE_VARIABLE.search(name)]
    for index, argument in enumerate(command):
        match = _ENGINE_ARGUMENT.match(argument)
        if match is None:
            continue
        if match.group(1) is not None:
            found.append(match.group(1))
        elif index + 1 < len(command):
            found.append(command[index + 1])
    return [value for value in found if value]


def copy_masked(source: Any, log: Any) -> None:
    """Copy the engine's output (stdout and stderr, one pipe) to the log line by line, each
    line through `redact.text`: the values fcbench knows, `--api-key X`-like arguments,
    `Bearer X` / `Basic X` credentials, URL passwords. Runs in a thread until the pipe ends."""
    writable, pending = True, b""
    try:
        for piece in iter(lambda: source.readline(LINE_LIMIT), b""):
            line, pending = _whole_words(pending + piece)
            if writable and line:
                writable = _write_masked(log, line)
            # else drained all the same: an engine blocked on a full pipe would hang
    except (OSError, ValueError):  # the pipe closed under it
        pass
    if writable and pending:
        _write_masked(log, pending)


def _whole_words(chunk: bytes) -> tuple[bytes, bytes]:
    """(what to mask now, what to hold back): a piece of an endless line, cut at
    `LINE_LIMIT`, is held back from its last blank on, so that a secret is masked whole."""
    if chunk.endswith(b"\n"):
        return chunk, b""
    cut = max(chunk.rfind(b" "), chunk.rfind(b"\r"), chunk.rfind(b"\t"))
    if cut < 0 or len(chunk) - cut > CARRY_LIMIT:
        return chunk, b""
    return chunk[:cut + 1], chunk[cut + 1:]


def _write_masked(log: Any, data: bytes) -> bool:
    """Write `data` masked; False once the log cannot be written (a full disk, closed)."""
    try:
        log.write(redact.text(data.decode("utf-8", "replace")).encode())
        log.flush()
    except (OSError, ValueError):
        return False
    return True


def serve_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The allow-listed part of `environ` (default: this process's) a served engine gets."""
    source = os.environ if environ is None else environ
    extra = {name.strip() for name in source.get(SERVE_ENV_VARIABLE, "").split(",")}
    return {name: value for name, value in source.items()
            if name in SERVE_ENV_NAMES or name in extra or name.startswith(SERVE_ENV_PREFIXES)}


def start_watchdog(pgid: int, grace: float = WATCHDOG_GRACE) -> subprocess.Popen[bytes] | None:
    """The watchdog of process group `pgid` (`runner.watchdog`), in a session of its own so
    that the terminal's signals do not reach it; it holds the read end of a pipe whose write
    end only this process has (not inheritable). None when it cannot be started: the server
    then runs without it, as before."""
    from fcbench.runner import watchdog

    try:
        return subprocess.Popen(
            [sys.executable, "-I", watchdog.__file__, str(pgid), str(grace)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True, env=serve_environment(),
        )
    except OSError:
        return None


def stop_watchdog(process: subprocess.Popen[bytes] | None) -> None:
    """After the server was stopped: close the pipe (the watchdog finds the group gone and
    exits), and reap it."""
    if process is None:
        return
    try:
        if process.stdin is not None:
            process.stdin.close()
        process.wait(5.0)
    except (OSError, subprocess.TimeoutExpired):
        process.kill()
        process.wait()


def health_url(base_url: str) -> str:
    """The model list under `base_url`, without its credentials: urllib cannot send a URL's
    userinfo (`http://u:pw@host` is an invalid port to it, so a server started for such a
    base URL was never seen ready) and the query is the client's, not the path's. Any
    answer below 500 counts (a 401 is a server that is up)."""
    parts = urllib.parse.urlsplit(base_url)
    host = parts.netloc.rpartition("@")[2]
    return urllib.parse.urlunsplit((parts.scheme, host, parts.path.rstrip("/") + "/models",
                                    "", ""))


def answers(url: str, timeout: float = 2.0) -> bool:
    """Whether an HTTP server answers at `url` with anything but a server error."""
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: no proxy
    try:
        with direct.open(url, timeout=timeout) as response:
            return int(response.status) < 500
    except urllib.error.HTTPError as exc:
        return exc.code < 500
    except (OSError, ValueError):
        return False


def _signal_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def _last_line(path: Path) -> str:
    try:
        lines = [line for line in path.read_text(errors="replace").splitlines()
                 if line.strip() and not line.startswith("# fcbench:")]
    except OSError:
        return ""
    return lines[-1].strip()[:200] if lines else ""


@contextlib.contextmanager
def serving(plan: ServePlan, log_path: Path, *, grace: float = STOP_GRACE) -> Iterator[Server]:
    """Start the server, wait until it is ready, yield it; stop it however the block ends.

    SIGTERM is turned into SystemExit while the server runs (in the main thread), so that a
    terminated fcbench stops its server too instead of leaving it behind.
    """
    server = Server(plan, log_path)
    previous = _exit_on_sigterm()
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop(grace)
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _exit_on_sigterm() -> Any:
    """Install a SIGTERM handler raising SystemExit(143); the previous one (None: not the
    main thread, nothing installed)."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def stop(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    previous = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, stop)
    return previous if previous is not None else signal.SIG_DFL
