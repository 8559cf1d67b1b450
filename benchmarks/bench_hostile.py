#!/usr/bin/env python3
"""Benchmark the whole hostile corpus (`tests/hostile/`), each input the way a user meets it,
each in a fresh process: its time, its peak memory over a normal input's, its outcome.

Workload, by part of the corpus:

* decoding answers (`hostile.decoding.HOSTILE`) whose route a result folder can express
  (`python`, `java`, `javascript`, `fc`, `family:NAME`): written as one case of a result file
  beside normal cases and scored by `fcbench evaluate`; the other routes (the XML/JSON
  return formats, `<TOOLCALL>` tags and multi-turn `execute`) are decoded directly, as
  `tests/decode/test_hostile.py` does (marked `decoder` below);
* malformed result lines and `model.json` contents (`hostile.files`): in a result folder
  beside a normal model, through `fcbench evaluate`;
* environment bombs (`hostile.environments.ENVIRONMENT_BOMBS`): run and judged as a
  multi-turn answer by the environment and the multi-turn checker (marked `environment`);
* hostile pages (`hostile.pages.PAGES`): fetched by the web tool's fetcher from a loopback
  server (`allow_private`, deadline 5 s);
* hostile endpoints (`hostile.endpoints.KINDS`): `fcbench generate` against the loopback
  `HostileEndpoint` (`--timeout 5`, one attempt, one case);
* every input of issue 30 (`_issue30.py`: mixed-key states, huge numbers, quadratic family
  parsers at generation, endless model lists at preflight, `data fetch --from` symlinks,
  loops and a 3 GiB member, planted score-file symlinks, a plugin that exits, a bad port),
  each judged by what a careful user expects of it (exit status, one line, nothing lost) and
  labelled with the part of the issue whose fix it needs.

Baselines, measured in the same run: the same kind of process on normal input (normal result
folder, a normal page, a well-behaved endpoint). Every `evaluate` run's normal cases must get
the verdicts they get without the hostile input. Floors: every input <= 10 s and <= 500 MB
over its baseline; the worst of each is printed against them.

Usage::

    python benchmarks/bench_hostile.py [--only PART[,PART...]] [--match TEXT] [--timeout S]

PARTs: decoding, files, environments, pages, endpoints, issue30. Needs an `FCBENCH_HOME` holding the
default release; without one it fetches it from the official wheel in ../shared/wheels into
a temporary home. Exit status 1 when a floor is broken, an input crashed or timed out, or a
normal case's verdict changed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests"), str(ROOT / "tests/envs/web_search"),
                str(ROOT / "benchmarks")]

import hostile.decoding  # noqa: E402
from fcbench._json import loads_numbers  # noqa: E402
from hostile.decoding import HOSTILE, Hostile  # noqa: E402
from hostile.environments import ENVIRONMENT_BOMBS  # noqa: E402
from hostile.files import MODEL_JSONS, RESULT_LINES  # noqa: E402
from hostile.pages import PAGES  # noqa: E402

SECONDS_FLOOR = 10.0
MEGABYTES_FLOOR = 500.0
PARTS = ("decoding", "files", "environments", "pages", "endpoints", "issue30")
WHEEL = ROOT.parent / "shared" / "wheels" / "bfcl_eval-2026.3.23-py3-none-any.whl"
FCBENCH = [sys.executable, "-m", "fcbench.cli"]
DEADLINE = 5.0
"""The page fetcher's deadline and `generate --timeout` here: the user's own bound."""

CATEGORY = {"python": "simple_python", "java": "simple_java",
            "javascript": "simple_javascript", "fc": "simple_python"}
"""Decoding routes a result folder expresses, and the category whose checker reads them."""

NORMAL_PROMPT = {
    "simple_python": ['[calculate_triangle_area(base=10, height=5)]', "[]", "no call here"],
    "simple_java": ["[f(a=1)]", "[]"],
    "simple_javascript": ["[f(a=1)]", "[]"],
}
NORMAL_FC = [[{"calculate_triangle_area": '{"base": 10, "height": 5}'}], []]
NORMAL_FIRST = 10
"""The normal cases' first index: clear of the ids the hostile result lines use (1-5)."""
HOSTILE_CASE = 20
"""The index of the case that holds a hostile answer."""


@dataclass(frozen=True)
class Run:
    """One finished (or killed) child process."""

    seconds: float
    peak_mb: float
    code: int
    out: str
    err: str


_SPAWNER = r"""
import json, os, subprocess, sys, time
report, argv = sys.argv[1], sys.argv[2:]
started = time.perf_counter()
pid = subprocess.Popen(argv).pid
_, status, usage = os.wait4(pid, 0)
with open(report, "w") as out:
    json.dump({"code": os.waitstatus_to_exitcode(status), "maxrss": usage.ru_maxrss,
               "seconds": time.perf_counter() - started}, out)
"""
"""Starts and waits for the measured process. Linux carries a process's peak RSS over
`fork` and `exec` (the child's starts at its parent's), so the measured process is forked
by this small interpreter (about 10 MB) rather than by the benchmark (60+ MB once the corpus
is built), whose size would otherwise be the floor of every figure."""


def run(argv: list[str], timeout: float, env: dict[str, str], stdin: str = "") -> Run:
    """Run `argv` in a fresh process; its wall time and its own peak RSS (`os.wait4` in a
    small spawner); killed with its spawner's session past `timeout`."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.TemporaryFile() as given, tempfile.TemporaryDirectory() as where:
        given.write(stdin.encode())
        given.seek(0)
        report = Path(where) / "report.json"
        started = time.perf_counter()
        spawner = subprocess.Popen([sys.executable, "-I", "-c", _SPAWNER, str(report), *argv],
                                   stdin=given, stdout=out, stderr=err, env=env,
                                   start_new_session=True)
        try:
            spawner.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(spawner.pid, signal.SIGKILL)
            spawner.wait()
        seconds = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        printed = out.read().decode(errors="replace")
        complaint = err.read().decode(errors="replace")
        found = json.loads(report.read_text()) if report.exists() else None
    if found is None:
        return Run(seconds, 0.0, -9, printed, complaint)
    return Run(found["seconds"], found["maxrss"] / 1024, found["code"], printed, complaint)


@dataclass
class Row:
    part: str
    name: str
    how: str
    run: Run
    outcome: str
    ok: bool
    baseline_mb: float


# --- evaluate: result folders ---------------------------------------------------------------


@dataclass(frozen=True)
class Folder:
    """A result folder's configuration: the model.json and which categories it holds."""

    mode: str
    family: str | None


def _normal_lines(folder: Folder, category: str) -> list[str]:
    if folder.mode == "fc":
        answers: list[Any] = NORMAL_FC
    else:
        answers = NORMAL_PROMPT[category]
    return [json.dumps({"id": f"{category}_{NORMAL_FIRST + i}", "result": a})
            for i, a in enumerate(answers)]


def write_folder(root: Path, folder: Folder, extra: dict[str, list[str]],
                 bad_model_json: str | None = None) -> None:
    """`root/my-model` with normal cases in each category (plus `extra` lines), and, given
    `bad_model_json`, a copy `root/other-model` holding that model.json."""
    model = root / "my-model"
    (model / "non_live").mkdir(parents=True)
    config: dict[str, Any] = {"mode": folder.mode}
    if folder.family:
        config["family"] = folder.family
    (model / "model.json").write_text(json.dumps(config))
    categories = ["simple_python"] if folder.mode == "fc" else list(NORMAL_PROMPT)
    for category in categories:
        lines = _normal_lines(folder, category) + extra.get(category, [])
        name = f"BFCL_v4_{category}_result.json"
        (model / "non_live" / name).write_text("\n".join(lines) + "\n")
    if bad_model_json is not None:
        other = root / "other-model"
        shutil.copytree(model, other)
        (other / "model.json").write_bytes(bad_model_json.encode("utf-8", "surrogateescape"))


def evaluate(folder: Folder, extra: dict[str, list[str]], env: dict[str, str], timeout: float,
             bad_model_json: str | None = None) -> tuple[Run, dict[str, Any]]:
    """`fcbench evaluate` on a fresh result folder; the run and its score files' verdicts
    ({category: {"summary": ..., "failed": {id: error_type}}})."""
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as where:
        root = Path(where) / "result"
        write_folder(root, folder, extra, bad_model_json)
        categories = "simple_python" if folder.mode == "fc" else ",".join(NORMAL_PROMPT)
        done = run([*FCBENCH, "evaluate", "--result-dir", str(root), "--model", "my-model",
                    "--categories", categories, "--score-dir", str(Path(where) / "score")]
                   if bad_model_json is None else
                   [*FCBENCH, "evaluate", "--result-dir", str(root), "--categories", categories,
                    "--score-dir", str(Path(where) / "score")], timeout, env)
        return done, _verdicts(Path(where) / "score" / "my-model")


def _verdicts(scores: Path) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for path in sorted(scores.rglob("*_score.json")):
        text = path.read_text(encoding="utf-8")
        lines = [loads_numbers(line) for line in text.split("\n") if line.strip()]
        category = path.name.removeprefix("BFCL_v4_").removesuffix("_score.json")
        found[category] = {"summary": lines[0],
                           "failed": {e["id"]: e.get("error_type") for e in lines[1:]}}
    return found


def _without(verdicts: dict[str, Any], case_id: str) -> dict[str, Any]:
    """The normal cases' verdicts: failures other than `case_id` (the summary counts it)."""
    return {c: {k: v for k, v in found["failed"].items() if k != case_id}
            for c, found in verdicts.items()}


def _warning(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    return lines[0].removeprefix("warning: ")[:110] if lines else ""


def _crashed(done: Run) -> str | None:
    if done.code == -9:
        return "TIMEOUT (killed)"
    if "Traceback" in done.err or done.code not in (0, 1):
        return f"CRASH (exit {done.code}): {done.err.strip().splitlines()[-1:]}"
    return None


class Evaluations:
    """Baselines per folder configuration, measured once each."""

    def __init__(self, env: dict[str, str], timeout: float) -> None:
        self.env, self.timeout = env, timeout
        self.base: dict[Folder, tuple[Run, dict[str, Any]]] = {}

    def baseline(self, folder: Folder) -> tuple[Run, dict[str, Any]]:
        if folder not in self.base:
            self.base[folder] = evaluate(folder, {}, self.env, self.timeout)
            done, verdicts = self.base[folder]
            print(f"  baseline evaluate {folder}: {done.seconds:.2f} s, {done.peak_mb:.0f} MB,"
                  f" {sum(v['summary'].get('total_count', 0) for v in verdicts.values())} cases")
        return self.base[folder]

    def measure(self, part: str, name: str, folder: Folder, extra: dict[str, list[str]],
                case_id: str | None, bad_model_json: str | None = None) -> Row:
        base_run, base_verdicts = self.baseline(folder)
        done, verdicts = evaluate(folder, extra, self.env, self.timeout, bad_model_json)
        crash = _crashed(done)
        same = _without(verdicts, case_id or "") == _without(base_verdicts, "")
        if crash:
            outcome, ok = crash, False
        elif not same:
            outcome, ok = f"NORMAL VERDICTS CHANGED: {_without(verdicts, '')}", False
        else:
            failed = {k: v for c in verdicts.values() for k, v in c["failed"].items()}
            warning = _warning(done.err)
            if case_id is not None and case_id in failed:
                outcome = f"recorded failure {failed[case_id]}"
            elif warning:
                outcome = f"warning: {warning}"
            else:
                outcome = "scored, no failure or warning"
            ok = (case_id is not None and case_id in failed) or bool(warning)
            outcome += "; normal verdicts unchanged"
        return Row(part, name, "evaluate", done, outcome, ok, base_run.peak_mb)


def decoding_rows(evaluations: Evaluations, env: dict[str, str], timeout: float,
                  wanted: Callable[[str], bool]) -> Iterator[Row]:
    from hostile.decoding import NORMAL

    def decode(name: str) -> tuple[Run, dict[str, Any]]:
        done = run([sys.executable, hostile.decoding.__file__, name], timeout, env)
        lines = done.out.strip().splitlines()
        return done, json.loads(lines[-1]) if done.code == 0 and lines else {}

    direct_base: float | None = None
    for entry in HOSTILE:
        if not wanted(entry.name):
            continue
        folder, category = _folder_for(entry)
        if folder is None:
            if direct_base is None:
                direct_base = decode(NORMAL.name)[0].peak_mb
                print(f"  baseline decoder (normal answer): {direct_base:.0f} MB")
            done, found = decode(entry.name)
            crash = _crashed(done)
            outcome = crash or (f"decoder failure {found['failure']}: {found['reason'][:60]}"
                                if "failure" in found else
                                f"decoded, {found.get('calls')} call(s) (the checker fails it)")
            yield Row("decoding", entry.name, "decoder", done, outcome, crash is None,
                      direct_base)
            continue
        case_id = f"{category}_{HOSTILE_CASE}"
        line = json.dumps({"id": case_id, "result": entry.build()})
        yield evaluations.measure("decoding", entry.name, folder, {category: [line]}, case_id)


def _folder_for(entry: Hostile) -> tuple[Folder | None, str]:
    kind, _, family = entry.route.partition(":")
    if kind == "family":
        return Folder("prompt", family), "simple_python"
    if kind in CATEGORY:
        return Folder("fc" if kind == "fc" else "prompt", None), CATEGORY[kind]
    return None, ""


def file_rows(evaluations: Evaluations, wanted: Callable[[str], bool]) -> Iterator[Row]:
    prompt = Folder("prompt", None)
    for name, line in RESULT_LINES.items():
        if wanted(name):
            yield evaluations.measure("files", f"result line: {name}", prompt,
                                      {"simple_python": [line]}, _line_id(line))
    for name, text in MODEL_JSONS.items():
        if wanted(name):
            yield evaluations.measure("files", f"model.json: {name}", prompt, {}, None, text)


def _line_id(line: str) -> str | None:
    """The case a result line names, when it names one as text (its verdict is its own)."""
    try:
        found = loads_numbers(line)  # a 5,000-digit number is read, as fcbench reads it
    except (ValueError, RecursionError):
        return None
    named = found.get("id") if isinstance(found, dict) else None
    return named if isinstance(named, str) else None


# --- environments, pages, endpoints ---------------------------------------------------------

_ENVIRONMENT = r"""
import json, sys
from fcbench.check.multi_turn import judge_multi_turn
from fcbench.core.model import TestCase
from fcbench.decode.encoding import Encoding
from fcbench.envs.scenario import Scenario

item = json.loads(sys.stdin.read())
case = TestCase("multi_turn_base_0", "multi_turn_base", [[]], [], [["ls()"]],
                {"involved_classes": item["classes"], "initial_config": item["config"]})
results = Scenario(case, "gen").execute(item["calls"])
verdict = judge_multi_turn(case, [["[" + ", ".join(item["calls"]) + "]"]], Encoding())
refused = any(item["refused"] in text for text in results)
print(json.dumps({"refused": refused, "valid": verdict.valid, "error_type": verdict.error_type}))
"""


def environment_rows(env: dict[str, str], timeout: float,
                     wanted: Callable[[str], bool]) -> Iterator[Row]:
    normal = {"classes": ["MathAPI"], "calls": ["add(a=1, b=2)"], "config": {}, "refused": "3"}
    base = run([sys.executable, "-c", _ENVIRONMENT], timeout, env, json.dumps(normal))
    print(f"  baseline environment (add): {base.seconds:.2f} s, {base.peak_mb:.0f} MB")
    for item in ENVIRONMENT_BOMBS:
        if not wanted(item.name):
            continue
        payload = json.dumps({"classes": list(item.involved_classes), "calls": list(item.calls),
                              "config": item.initial_config, "refused": item.refused})
        done = run([sys.executable, "-c", _ENVIRONMENT], timeout, env, payload)
        crash = _crashed(done)
        if crash:
            yield Row("environments", item.name, "environment", done, crash, False,
                      base.peak_mb)
            continue
        found = json.loads(done.out.strip().splitlines()[-1])
        outcome = (f"call refused ({item.refused!r}); case recorded as "
                   f"{'valid' if found['valid'] else found['error_type']}")
        yield Row("environments", item.name, "environment", done, outcome, found["refused"],
                  base.peak_mb)


_PAGE = r"""
import json, sys
from fcbench.envs.web_search.pages import PageFetcher
answer = PageFetcher(allow_private=True, deadline=float(sys.argv[2])).fetch(sys.argv[1], "raw")
print(json.dumps({k: str(v)[:100] for k, v in answer.items()}))
"""


FOLLOWED = ("/to-localhost",)
"""Pages whose redirect `allow_private` follows (the server is on loopback, so the default
policy would refuse the first hop already; `tests/envs/web_search/test_web_guard.py` checks
the refusal of each hop with loopback treated as public)."""


def page_rows(env: dict[str, str], timeout: float,
              wanted: Callable[[str], bool]) -> Iterator[Row]:
    from fake_web import FakeWeb

    web = FakeWeb()
    try:
        base = run([sys.executable, "-c", _PAGE, web.url("/page"), str(DEADLINE)], timeout, env)
        print(f"  baseline page (/page): {base.seconds:.2f} s, {base.peak_mb:.0f} MB")
        for path, what in PAGES.items():
            if not wanted(path):
                continue
            done = run([sys.executable, "-c", _PAGE, web.url(path), str(DEADLINE)], timeout,
                       env)
            crash = _crashed(done)
            if crash:
                yield Row("pages", f"{path} ({what})", "fetcher", done, crash, False,
                          base.peak_mb)
                continue
            answer = json.loads(done.out.strip().splitlines()[-1])
            error = answer.get("error")
            outcome = (f"tool error: {error}" if error else
                       f"content ({len(answer.get('content', ''))} chars shown)")
            yield Row("pages", f"{path} ({what})", "fetcher", done, outcome[:110],
                      bool(error) or path in FOLLOWED, base.peak_mb)
    finally:
        web.close()


def endpoint_rows(env: dict[str, str], timeout: float,
                  wanted: Callable[[str], bool]) -> Iterator[Row]:
    from hostile.endpoints import KINDS, HostileEndpoint

    with HostileEndpoint(drip_every=2.0, drip_for=30.0) as server, \
            tempfile.TemporaryDirectory(prefix="bench-hostile-gen-") as where:
        def generate(kind: str) -> tuple[Run, str]:
            folder = Path(where) / kind
            done = run([*FCBENCH, "generate", "--model", "m", "--base-url", server.url(kind),
                        "--categories", "simple_python", "--limit", "1", "--mode", "prompt",
                        "--max-attempts", "1", "--no-preflight", "--stop-after", "0", "-q",
                        "--timeout", str(DEADLINE), "--result-dir", str(folder)], timeout, env)
            entries = [json.loads(line) for file in folder.rglob("*_result.json")
                       for line in file.read_text().splitlines() if line.strip()]
            size = sum(f.stat().st_size for f in folder.rglob("*_result.json"))
            return done, f"{len(entries)} case(s) recorded, {size} bytes: " + "; ".join(
                sorted({json.dumps(e.get("result", e))[:60] for e in entries}))

        base, stored = generate("fine")
        print(f"  baseline generate (fine): {base.seconds:.2f} s, {base.peak_mb:.0f} MB;"
              f" {stored}")
        for kind in KINDS:
            if not wanted(kind):
                continue
            done, stored = generate(kind)
            crash = _crashed(done)
            outcome = crash or f"recorded error; {stored}"
            ok = crash is None and "1 case(s)" in stored and "Traceback" not in done.err
            yield Row("endpoints", kind, "generate", done, outcome[:110], ok, base.peak_mb)


# --- issue 30 -------------------------------------------------------------------------------


def issue30_rows(env: dict[str, str], timeout: float, wanted: Callable[[str], bool],
                 scratch: Path) -> Iterator[Row]:
    """Every input of issue 30 (`_issue30`), each prepared in a folder of its own, run in its
    own process under `timeout`, judged, and set against its kind's baseline (measured once,
    the first time an input of that kind comes)."""
    import _issue30 as issue

    from fake_openai import FakeOpenAI
    from hostile.endpoints import HostileEndpoint

    texts = issue.replies()

    def answer(request: dict[str, Any]) -> dict[str, Any]:  # the text named by the model
        return {"content": texts.get(str(request.get("model")), "[f(a=1)]")}

    with FakeOpenAI(responder=answer) as fake, HostileEndpoint() as hostile:
        servers = issue.Servers(f"{fake.base_url}", hostile.url("models-endless"))
        baselines, found = issue.inputs(servers, scratch)
        measured: dict[str, tuple[Run, str, bool]] = {}
        for index, item in enumerate(found):
            if not wanted(item.name):
                continue
            if item.baseline not in measured:
                measured[item.baseline] = _issue30_job(
                    baselines[item.baseline], scratch / f"base-{len(measured)}", env, timeout)
                base, said, good = measured[item.baseline]
                mark = "" if good else " (NOT AS EXPECTED)"
                print(f"  baseline {item.baseline}: {base.seconds:.2f} s, {base.peak_mb:.0f} MB;"
                      f" {said}{mark}")
            done, said, good = _issue30_job(item.job, scratch / f"input-{index}", env, timeout)
            yield Row("issue30", item.name, item.how, done, f"[{item.area}] {said}"[:110], good,
                      measured[item.baseline][0].peak_mb)


def _issue30_job(make: Callable[[Path, dict[str, str]], Any], folder: Path,
                 env: dict[str, str], timeout: float) -> tuple[Run, str, bool]:
    """(the run, what happened, as expected?) of one job; a job that cannot even be prepared
    is a row of its own, never the end of the benchmark."""
    import _issue30 as issue

    folder.mkdir(parents=True)
    try:
        job = make(folder, env)
    except Exception as exc:  # the benchmark goes on with the next input
        return Run(0.0, 0.0, -1, "", ""), f"NOT PREPARED: {type(exc).__name__}: {exc}", False
    done = run(job.argv, timeout, {**env, **job.env})
    if done.code == -9:
        return done, f"TIMEOUT (killed after {timeout:g} s)", False
    good, said = job.check(issue.Outcome(done.code, done.out, done.err))
    return done, said, good


# --- the run --------------------------------------------------------------------------------


def home_env(scratch: Path) -> dict[str, str]:
    """The environment for every child: this tree's source first, a fetched FCBENCH_HOME."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    if "FCBENCH_HOME" not in env:
        env["FCBENCH_HOME"] = str(scratch / "home")
        done = subprocess.run([*FCBENCH, "data", "fetch", "--from", str(WHEEL)], env=env,
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"bench_hostile: could not fetch the data: {done.stderr[-300:]}")
    env.setdefault("FCBENCH_CACHE", "off")
    return env


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--only", help="comma-separated parts: " + ", ".join(PARTS))
    parser.add_argument("--match", help="only inputs whose name contains this text")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds before an input's process is killed (default 60)")
    args = parser.parse_args()
    parts = args.only.split(",") if args.only else list(PARTS)

    def wanted(name: str) -> bool:
        return args.match is None or args.match in name

    with tempfile.TemporaryDirectory(prefix="bench-hostile-home-") as scratch:
        env = home_env(Path(scratch))
        evaluations = Evaluations(env, args.timeout)
        makers: dict[str, Callable[[], Iterator[Row]]] = {
            "decoding": lambda: decoding_rows(evaluations, env, args.timeout, wanted),
            "files": lambda: file_rows(evaluations, wanted),
            "environments": lambda: environment_rows(env, args.timeout, wanted),
            "pages": lambda: page_rows(env, args.timeout, wanted),
            "endpoints": lambda: endpoint_rows(env, args.timeout, wanted),
            "issue30": lambda: issue30_rows(env, args.timeout, wanted, Path(scratch) / "i30"),
        }
        rows: list[Row] = []
        for part in parts:
            print(f"== {part}")
            print(f"{'input':44} {'how':11} {'s':>6} {'MB':>6} {'+MB':>6}  outcome")
            for row in makers[part]():
                rows.append(row)
                _print(row)
    return _summary(rows)


def _over(row: Row) -> float:
    return row.run.peak_mb - row.baseline_mb


def _within(row: Row) -> bool:
    return row.ok and row.run.seconds <= SECONDS_FLOOR and _over(row) <= MEGABYTES_FLOOR


def _print(row: Row) -> None:
    flag = "" if _within(row) else "FLOOR BROKEN "
    print(f"{row.name[:44]:44} {row.how:11} {row.run.seconds:6.2f} {row.run.peak_mb:6.0f} "
          f"{_over(row):6.0f}  {flag}{row.outcome}", flush=True)


def _summary(rows: list[Row]) -> int:
    if not rows:
        print("no input selected")
        return 1
    slowest = max(rows, key=lambda r: r.run.seconds)
    biggest = max(rows, key=_over)
    broken = [r for r in rows if not _within(r)]
    print(f"worst time: {slowest.run.seconds:.2f} s ({slowest.name}; floor "
          f"{SECONDS_FLOOR:.0f} s); worst memory: {_over(biggest):.0f} MB over the baseline "
          f"({biggest.name}; floor {MEGABYTES_FLOOR:.0f} MB); "
          f"{len(rows) - len(broken)}/{len(rows)} within the floors with the expected outcome")
    for row in broken:  # named, so that a run says which inputs still fail (and whose they are)
        print(f"  not within: {row.part}: {row.name} ({row.outcome[:70]})")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
