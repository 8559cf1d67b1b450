"""Harness overhead of `fcbench generate`: cases per second against a zero-latency local server.

The server (tests/fake_openai.py, in its own process, 127.0.0.1 only) answers every request at
once with a constant tool call, so the measured rate is what the harness itself can drive:
request building, the openai client, parsing, the result store. Printed next to a plain
sequential client (the openai client, one request after another, nothing written), and, with
`--official`, next to the official tool's generation (`bfcl generate --num-threads N` with a
registry model served by its OpenAI Chat Completions handler, `OPENAI_BASE_URL` pointed at the
same server), both timed as whole commands from start to exit on the same categories.

The official tool runs in a cached venv (`$FCBENCH_BENCH_HOME`, see `_official.py`): the
official wheel, its single-turn runtime requirements, and the real `openai` client; the other
vendor SDKs are stubbed (they are imported at start-up but never used by this handler, and a
stub only makes the official tool start faster).
The first run in a fresh process also pays for importing the openai client and creating its
TLS contexts; it is printed too, the rate reported is the best of three warm runs.

    python benchmarks/bench_generate.py [--cases 2000] [--concurrency 64] [--mode fc] [--official]

Fetches the data itself when it is missing; uses simple_python, multiple, live_simple...
repeated as needed to reach --cases.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CATEGORIES = ("simple_python", "multiple", "live_simple", "live_multiple", "parallel")


def start_server() -> tuple[subprocess.Popen[str], str]:
    """The zero-latency server in a child process; returns it and its base URL."""
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "fake_openai.py")],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def load_cases(n: int) -> list[tuple[object, list[object]]]:
    """`n` single-turn cases (ids made unique when categories must repeat)."""
    from dataclasses import replace

    from fcbench.core import categories
    from fcbench.dataset.load import load_category

    out = []
    total = 0
    for round_ in range(100):
        for name in CATEGORIES:
            if total >= n:
                return out
            cat = categories.get(name)
            cases = load_category(cat)[: n - total]
            if round_:
                cases = [replace(c, id=f"{c.id.rsplit('_', 1)[0]}_{round_}{i:05d}")
                         for i, c in enumerate(cases)]
            out.append((cat, cases))
            total += len(cases)
    return out


def run_fcbench(url: str, cases: list, concurrency: int, mode: str) -> float:
    """Cases/s of the full generation path (backend + scheduler + store)."""
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.dataset.prompt_texts import load_texts
    from fcbench.models.openai_compat import OpenAICompatBackend
    from fcbench.runner.generate import GenerateSettings, generate

    backend = OpenAICompatBackend(
        "bench", [url], load_texts(DEFAULT_RELEASE), concurrency=concurrency
    )
    with tempfile.TemporaryDirectory() as tmp:
        settings = GenerateSettings(mode="fc" if mode == "fc" else "prompt",
                                    concurrency=concurrency)
        report = generate(backend, Path(tmp) / "bench", cases, settings)
    assert report.errors == 0, report.summary()
    return report.asked / report.seconds


def run_sequential(url: str, cases: list, mode: str) -> float:
    """Cases/s of a plain client: build the same request, await it, one at a time."""
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.dataset.prompt_texts import load_texts
    from fcbench.models.prompts import build_request

    texts = load_texts(DEFAULT_RELEASE)
    flat = [case for _, group in cases for case in group]

    async def main() -> float:
        from openai import AsyncOpenAI

        client = AsyncOpenAI(base_url=url, api_key="EMPTY", max_retries=0)
        start = time.perf_counter()
        for case in flat:
            request = build_request(case, "fc" if mode == "fc" else "prompt", texts)
            kwargs = {"model": "bench", "messages": request.messages, "temperature": 0.001}
            if request.tools:
                kwargs["tools"] = request.tools
            await client.chat.completions.create(**kwargs)
        seconds = time.perf_counter() - start
        await client.close()
        return len(flat) / seconds

    return asyncio.run(main())


OFFICIAL_MODEL = "openbmb/MiniCPM-SALA-FC"
"""A registry model whose handler is the official OpenAI Chat Completions handler (FC)."""
WHOLE_RUN_CATEGORIES = ("simple_python", "multiple", "live_simple", "live_multiple", "parallel")


def official_generation_venv() -> Path:
    """The official tool plus the real openai client, in a cached venv (built once)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import json
    import shutil

    from _official import OFFICIAL_VERSION, bench_home, install_commands

    version = "{}.{}".format(*sys.version_info[:2])
    venv = bench_home() / f"venv-bfcl_eval-gen-{OFFICIAL_VERSION}-py{version}"
    wheels = ROOT.parent / "shared" / "wheels"
    commands = install_commands(venv, sys.executable, wheels if wheels.is_dir() else None)
    commands[-1] = [*commands[-1], "openai"]
    marker = venv / ".fcbench-bench-gen-ready.json"
    if marker.exists() and json.loads(marker.read_text()) == commands:
        return venv
    if venv.exists():
        shutil.rmtree(venv)
    for command in commands:
        print("  $ " + " ".join(command), file=sys.stderr)
        subprocess.run(command, check=True, capture_output=True)
    where = "import sysconfig; print(sysconfig.get_path('purelib'))"
    purelib = Path(subprocess.run(
        [str(venv / "bin" / "python"), "-c", where], check=True, capture_output=True, text=True
    ).stdout.strip())
    shutil.copyfile(ROOT / "benchmarks" / "_bfcl_stubs.py", purelib / "_fcbench_bench_stubs.py")
    (purelib / "_fcbench_bench_stubs.pth").write_text(
        "import _fcbench_bench_stubs; _fcbench_bench_stubs.install()\n"
    )
    marker.write_text(json.dumps(commands))
    return venv


def whole_run(command: list[str], env: dict[str, str]) -> float:
    """Seconds from start to exit of one generation command."""
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def compare_with_official(url: str, concurrency: int) -> tuple[int, float, float]:
    """(cases, fcbench s, official s) for whole `generate` commands on the same categories."""
    from fcbench.dataset.load import dataset_size

    n = sum(dataset_size(c) for c in WHOLE_RUN_CATEGORIES)
    venv = official_generation_venv()
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, BFCL_PROJECT_ROOT=tmp, OPENAI_BASE_URL=url,
                   OPENAI_API_KEY="fcbench-bench-dummy")
        env.pop("PYTHONPATH", None)
        official = whole_run(
            [str(venv / "bin" / "bfcl"), "generate", "--model", OFFICIAL_MODEL,
             "--test-category", ",".join(WHOLE_RUN_CATEGORIES),
             "--num-threads", str(concurrency)],
            env,
        )
        ours = whole_run(
            [sys.executable, "-m", "fcbench.cli", "generate", "--model", OFFICIAL_MODEL,
             "--base-url", url, "--categories", ",".join(WHOLE_RUN_CATEGORIES),
             "--concurrency", str(concurrency), "--result-dir", str(Path(tmp) / "fcbench"),
             "--quiet"],
            env,
        )
        for root in (Path(tmp) / "result", Path(tmp) / "fcbench"):
            files = root.rglob("*_result.json")
            lines = [line for f in files for line in f.read_text().splitlines()]
            errors = sum("Error during inference" in line for line in lines)
            assert len(lines) == n and errors == 0, f"{root}: {len(lines)} lines, {errors} errors"
    return n, ours, official


def ensure_data() -> None:
    """Use the fetched data if there is some; otherwise fetch it into the benchmark's own home
    (from ../shared/wheels when present, else with pip), as bench_evaluate.py does."""
    from fcbench.dataset.fetch import is_fetched
    from fcbench.dataset.install import fetch

    if is_fetched():
        return
    home = Path(os.environ.get("FCBENCH_BENCH_HOME", Path.home() / ".cache" / "fcbench-bench"))
    os.environ["FCBENCH_HOME"] = str(home / "fcbench-home")
    wheels = Path(__file__).resolve().parents[2] / "shared" / "wheels"
    local = sorted(wheels.glob("bfcl_eval-*.whl")) if wheels.is_dir() else []
    fetch(source=local[-1] if local else None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--mode", choices=["fc", "prompt"], default="fc")
    parser.add_argument("--official", action="store_true",
                        help="also time the official tool's generation (builds a venv once)")
    args = parser.parse_args()
    whole: tuple[int, float, float] | None = None
    ensure_data()
    proc, url = start_server()
    try:
        cases = load_cases(args.cases)
        n = sum(len(c) for _, c in cases)
        cold = run_fcbench(url, cases, args.concurrency, args.mode)  # imports openai, TLS setup
        fast = max(run_fcbench(url, cases, args.concurrency, args.mode) for _ in range(3))
        base_cases = load_cases(min(n, 500))
        slow = run_sequential(url, base_cases, args.mode)
        if args.official:
            whole = compare_with_official(url, args.concurrency)
    finally:
        proc.terminate()
        proc.wait()
    print(f"machine: {os.cpu_count()} cores; zero-latency server on 127.0.0.1; mode {args.mode}")
    print(f"fcbench generate, concurrency {args.concurrency}: {fast:8.1f} cases/s ({n} cases, "
          f"best of 3 warm runs; first run in a fresh process: {cold:.1f} cases/s)")
    print(f"plain sequential openai client:      {slow:8.1f} cases/s (baseline)")
    print(f"ratio: {fast / slow:.1f}x; floor 500 cases/s: {'met' if fast >= 500 else 'NOT met'}")
    if whole is not None:
        cases, ours, official = whole
        print(f"whole commands, {cases} FC cases ({', '.join(WHOLE_RUN_CATEGORIES)}), "
              f"concurrency/threads {args.concurrency}, start to exit:")
        print(f"  fcbench generate:  {ours:6.2f} s  {cases / ours:8.1f} cases/s")
        print(f"  official bfcl generate: {official:6.2f} s  {cases / official:8.1f} cases/s"
              f"  (fcbench {official / ours:.1f}x faster)")


if __name__ == "__main__":
    main()
