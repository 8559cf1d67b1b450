"""A served engine end to end: serve a model, run every category, print the throughput and
the harness's own share of the time.

On a GPU machine (vLLM or SGLang installed):

    python benchmarks/bench_served.py --model Qwen/Qwen3-0.6B --serve vllm
    python benchmarks/bench_served.py --model Qwen/Qwen3-8B --serve vllm --tensor-parallel 2
    python benchmarks/bench_served.py --model M --base-url http://gpu1:8000/v1 \
        --base-url http://gpu2:8000/v1            # replicas already running

Without an engine, `--stand-in` serves the tests' loopback OpenAI-compatible server
(tests/fake_openai.py: a constant tool call, at once) so the script itself is exercised:

    python benchmarks/bench_served.py --stand-in --limit 3

Each phase is a real `fcbench` process (`generate`, then `evaluate`), timed from start to
exit. Printed per phase: cases, wall seconds, cases per second, output tokens per second, and
the harness's CPU seconds (the child's user + system time, `RUSAGE_CHILDREN`) as a share of
the wall time: the part of the run fcbench itself is busy on a core, the rest being waiting
for the engine (with `--serve`, the engine's start-up is in the generate phase's wall time
and printed apart from fcbench's serve log). Also the time requests were in flight (the sum
of the result lines' `latency`) over the wall time: the concurrency the engine actually saw.

What was measured here, and what was not: this machine has no GPU and neither engine; the
script was run with `--stand-in` only, on 2 cores shared with other work, which measures the
harness against a zero-latency server, i.e. an upper bound on the harness's share (every FC
category, `--limit 2`: 70 cases; generate 17.4 s wall of which 4.5 s harness CPU, 26%, the
rest mostly the processes' start-up and data loading on the loaded machine; evaluate 3.0 s,
0.85 s CPU). The figures for a real
engine (its throughput, the harness's share when the engine is the bottleneck, tensor or data
parallel scaling) have not been measured and are what this script is for.

Defaults: `--categories all` in FC mode (format_sensitivity is asked in prompt mode only and
is left out by fcbench's FC run; web search needs SerpAPI or `--web-provider ddgs`, so it is
left out unless `--with-web-search`), `--limit` none (every case; `--stand-in` defaults to 3
per category).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STAND_IN = ROOT / "tests" / "fake_openai.py"


@dataclass
class Phase:
    """One timed `fcbench` command."""

    name: str
    wall: float
    cpu: float
    status: int


def timed(name: str, argv: list[str], env: dict[str, str]) -> Phase:
    """Run `python -m fcbench.cli ARGV` to its end; wall time and its CPU time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    status = subprocess.run([sys.executable, "-m", "fcbench.cli", *argv], env=env,
                            stdout=subprocess.DEVNULL, check=False).returncode
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Phase(name, wall, cpu, status)


def start_stand_in(model: str) -> tuple[subprocess.Popen[str], str]:
    """The loopback stand-in server in a child process; returns it and its base URL."""
    proc = subprocess.Popen([sys.executable, str(STAND_IN), "--model", model],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def result_lines(folder: Path) -> list[dict[str, object]]:
    """Every entry of a model folder's result files."""
    found: list[dict[str, object]] = []
    for path in sorted(folder.rglob("BFCL_v4_*_result.json")):
        found += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
                  if line.strip()]
    return found


def number(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) else 0.0


def report(generate: Phase, evaluate: Phase, entries: list[dict[str, object]]) -> list[str]:
    """The printed table."""
    cases = len(entries)
    tokens = sum(number(e.get("output_token_count")) for e in entries)
    in_flight = sum(number(e.get("latency")) for e in entries)
    lines = [f"{'phase':<10}{'cases':>8}{'wall s':>10}{'cases/s':>10}{'out tok/s':>11}"
             f"{'harness cpu s':>15}{'harness share':>15}"]
    for phase in (generate, evaluate):
        rate = cases / phase.wall if phase.wall else 0.0
        tok = f"{tokens / phase.wall:>11.1f}" if phase is generate else f"{'':>11}"
        share = phase.cpu / phase.wall if phase.wall else 0.0
        lines.append(f"{phase.name:<10}{cases:>8}{phase.wall:>10.2f}{rate:>10.1f}{tok}"
                     f"{phase.cpu:>15.2f}{share:>14.0%}")
    if generate.wall:
        lines.append(f"requests in flight over the generate phase: {in_flight / generate.wall:.1f} "
                     "on average (the concurrency the engine saw)")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="Qwen/Qwen3-0.6B")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--serve", choices=("vllm", "sglang"))
    source.add_argument("--base-url", action="append", default=None,
                        help="An engine already serving (repeat for replicas).")
    source.add_argument("--stand-in", action="store_true",
                        help="The tests' loopback server (no engine, no GPU).")
    parser.add_argument("--tensor-parallel", type=int)
    parser.add_argument("--data-parallel", type=int)
    parser.add_argument("--serve-args", default=None)
    parser.add_argument("--categories", default="all,-web_search")
    parser.add_argument("--with-web-search", action="store_true")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--keep", type=Path, default=None, help="Keep the folders here.")
    args = parser.parse_args(argv)
    if not (args.serve or args.base_url or args.stand_in):
        parser.error("give --serve ENGINE, --base-url URL or --stand-in")
    limit = args.limit if args.limit is not None or not args.stand_in else 3
    categories = "all" if args.with_web_search else args.categories
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-served-"))
    env = {**os.environ, "FCBENCH_CACHE": "off"}
    env.setdefault("OPENAI_API_KEY", "none")
    stand_in = None
    urls = list(args.base_url or [])
    if args.stand_in:
        stand_in, url = start_stand_in(args.model)
        urls = [url]
    try:
        flags = ["--model", args.model, "--name", "bench", "--categories", categories,
                 "--concurrency", str(args.concurrency), "--result-dir", str(work / "r"),
                 "--quiet", "--overwrite"]
        for url in urls:
            flags += ["--base-url", url]
        if args.serve:
            flags += ["--serve", args.serve]
        for flag, value in (("--tensor-parallel", args.tensor_parallel),
                            ("--data-parallel", args.data_parallel),
                            ("--serve-args", args.serve_args), ("--limit", limit)):
            if value is not None:
                flags += [flag, str(value)]
        generate = timed("generate", ["generate", *flags], env)
        evaluate = timed("evaluate", ["evaluate", "--result-dir", str(work / "r"),
                                      "--score-dir", str(work / "s"), "--no-write"], env)
    finally:
        if stand_in is not None:
            stand_in.terminate()
            stand_in.wait(10)
    entries = result_lines(work / "r" / "bench")
    source_name = ("stand-in (loopback, zero latency)" if args.stand_in else
                   f"--serve {args.serve}" if args.serve else f"{len(urls)} base URL(s)")
    print(f"{args.model} via {source_name}, categories {categories}"
          f"{f', --limit {limit}' if limit else ''}, concurrency {args.concurrency}")
    for line in report(generate, evaluate, entries):
        print(line)
    if generate.status not in (0, 1) or evaluate.status != 0:
        print(f"fcbench exited {generate.status} / {evaluate.status}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
