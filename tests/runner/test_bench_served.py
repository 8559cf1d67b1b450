"""benchmarks/bench_served.py runs as a GPU machine would run it, here against the tests'
loopback stand-in server (`--stand-in`): its phases are real `fcbench` processes, and its
table counts every case the generate phase wrote."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_served.py"


def test_the_served_benchmark_runs_against_the_stand_in(fetched_home: Path,
                                                        tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--stand-in", "--categories",
         "simple_python,multi_turn_base", "--limit", "2", "--concurrency", "4",
         "--keep", str(tmp_path)],
        capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Qwen/Qwen3-0.6B via stand-in")
    assert lines[1].split()[:3] == ["phase", "cases", "wall"]
    generate, evaluate = lines[2].split(), lines[3].split()
    assert generate[:2] == ["generate", "4"] and evaluate[:2] == ["evaluate", "4"]
    assert generate[-1].endswith("%") and float(generate[2]) > 0
    assert lines[4].startswith("requests in flight over the generate phase: ")
    assert len(list((tmp_path / "r" / "bench").rglob("BFCL_v4_*_result.json"))) == 2
