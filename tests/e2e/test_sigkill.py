"""kill -9 at random moments, resume, and compare with a clean run: nothing lost, nothing twice.

`fcbench generate` runs as a child process against the local replay server (with a little
latency, so that kills land before, during and after the writes); after every kill each result
file must read cleanly (every line a complete entry, no id twice). The final files must equal
a clean run's. The clean run and the final resume run in-process: the killed runs are the
processes this test needs.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner

from fake_openai import CorpusResponder, FakeOpenAI
from fcbench.cli import main
from shared_corpus import V1, needs_corpus

CORPUS = V1
MODEL = "gpt-4o-2024-08-06-FC"
CATS = ["simple_python", "multiple", "irrelevance"]
KILLS = 12


def command(url: str, result_dir: Path, concurrency: int = 4) -> list[str]:
    return [
        sys.executable, "-m", "fcbench.cli", "generate", "--model", "m", "--name", MODEL,
        "--base-url", url, "--categories", ",".join(CATS), "--result-dir", str(result_dir),
        "--concurrency", str(concurrency), "--quiet",
    ]


def run_in_process(command: list[str]) -> int:
    """`command` (a `python -m fcbench.cli ...` list) run by click's runner; its exit code."""
    return CliRunner().invoke(main, command[3:], catch_exceptions=False).exit_code


def files(result_dir: Path) -> dict[str, list[str]]:
    folder = result_dir / MODEL / "non_live"
    return {
        name: (folder / f"BFCL_v4_{name}_result.json").read_text().splitlines()
        if (folder / f"BFCL_v4_{name}_result.json").exists() else []
        for name in CATS
    }


def check_readable(result_dir: Path) -> int:
    """Every line parses, no id twice; returns the number of finished cases."""
    total = 0
    for name, lines in files(result_dir).items():
        ids = [json.loads(line)["id"] for line in lines]  # a torn line would raise here
        assert len(ids) == len(set(ids)), f"duplicate ids in {name}"
        total += len(ids)
    return total


def wait_for_more_lines(result_dir: Path, seen: int, proc: subprocess.Popen[bytes]) -> None:
    """Return once the files hold more lines than `seen` (or the child ended, or 20 s)."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and proc.poll() is None:
        if sum(len(lines) for lines in files(result_dir).values()) > seen:
            return
        time.sleep(0.01)


@needs_corpus
def test_kill_minus_nine_and_resume(fetched_home: Path, tmp_path: Path) -> None:
    env = {**os.environ, "FCBENCH_HOME": str(fetched_home)}
    rng = random.Random(1234)
    with FakeOpenAI(CorpusResponder(CORPUS / MODEL, CATS), delay=0.02) as server:
        assert run_in_process(command(server.base_url, tmp_path / "clean", concurrency=64)) == 0
        progress = [0]
        for kill in range(KILLS):
            proc = subprocess.Popen(command(server.base_url, tmp_path / "killed"), env=env)
            if kill % 2:  # at a random moment, often while starting up or opening files
                time.sleep(rng.uniform(0.05, 1.0))
            else:  # while answers are being written, however slow the machine
                wait_for_more_lines(tmp_path / "killed", progress[-1], proc)
                time.sleep(rng.uniform(0, 0.1))
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            progress.append(check_readable(tmp_path / "killed"))
        # the resume at the clean run's concurrency: what is left is asked 64 at a time
        resume = command(server.base_url, tmp_path / "killed", concurrency=64)
        assert run_in_process(resume) == 0
    print("finished cases after each kill:", progress)
    landed_mid_write = sum(1 for a, b in itertools.pairwise(progress) if b > a)
    assert landed_mid_write >= KILLS // 2, "too few kills landed while answers were written"
    assert progress[-1] < 840, "the run finished before the last kill"
    clean = files(tmp_path / "clean")
    killed = files(tmp_path / "killed")
    for name in CATS:
        want = [(e["id"], e["result"]) for e in map(json.loads, clean[name])]
        got = [(e["id"], e["result"]) for e in map(json.loads, killed[name])]
        assert got == want, name  # same ids, same order, same answers: none lost or doubled
