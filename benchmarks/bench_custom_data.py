"""What `fcbench data validate` costs on a large custom dataset: wall time and the child's
own peak RSS for a generated simple-format (JSONL) file of N lines, this tree's code against
a baseline source tree (e.g. the previous commit unpacked with `git archive`), each run in its
own process so neither's memory counts in the other's figure.

    python benchmarks/bench_custom_data.py [--lines 100000 1000000] [--baseline-src DIR]
        [--findings 1000]

A generated line is a case of a few hundred bytes (two tools, a question, two expected
calls); every `--findings`-th case carries a defect (an undocumented parameter), so the
findings are checked too: both trees must report the same number. Baseline: a Python process
that only imports fcbench (printed first).

Measured on the shared 2-core machine (loaded by other work; times are rough):
100,000 lines (73 MB): 50.7 s, 51 MB peak RSS (the code before: 57.7 s, 708 MB);
1,000,000 lines (734 MB): 338 s, 310 MB (import alone: 15 MB; the code before was reported at
5.8 GB and not rerun). What remains proportional: one id per case and file for duplicate ids.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _measure import Measured, run_measured

SRC = Path(__file__).resolve().parents[1] / "src"
_TOOLS = [
    {"type": "function", "function": {
        "name": "check_stock", "description": "Units in stock of an item in a store.",
        "parameters": {"type": "object", "properties": {
            "sku": {"type": "string", "description": "Item code."},
            "store": {"type": "string", "description": "Store city."}},
            "required": ["sku", "store"]}}},
    {"type": "function", "function": {
        "name": "price", "description": "Price of an item.",
        "parameters": {"type": "object", "properties": {
            "sku": {"type": "string", "description": "Item code."}}, "required": ["sku"]}}},
]


def write_dataset(folder: Path, lines: int, every: int) -> None:
    """A manifest and one JSONL category of `lines` cases, one in `every` defective."""
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {"name": "big", "categories": [
        {"name": "big_parallel", "checker": "ast", "file": "big.jsonl"}]}
    (folder / "fcbench.json").write_text(json.dumps(manifest), encoding="utf-8")
    with (folder / "big.jsonl").open("w", encoding="utf-8") as out:
        for n in range(lines):
            args = {"sku": f"GD-{n}", "store": ["Lyon", "Lyon, France"]}
            if n % every == every - 1:
                args["colour"] = "red"  # not a documented parameter: one finding
            case = {"id": f"big_parallel_{n}", "tools": _TOOLS,
                    "question": f"Is GD-{n} in stock in Lyon and Nantes?",
                    "expected": [{"check_stock": args},
                                 {"check_stock": {"sku": f"GD-{n}", "store": "Nantes"}}]}
            out.write(json.dumps(case) + "\n")


def measure(src: Path, argv: list[str], log: Path) -> Measured:
    env = {**os.environ, "PYTHONPATH": str(src)}
    return run_measured([sys.executable, *argv], env=env, log=log)


def validate(src: Path, folder: Path, log: Path) -> tuple[Measured, str]:
    """One `fcbench data validate FOLDER` run: its measure and its summary line."""
    code = ("import sys; from fcbench.cli import main; "
            "main(['data', 'validate', sys.argv[1]])")
    found = measure(src, ["-c", code, str(folder)], log)
    text = log.read_text(errors="replace")
    summary = re.findall(r".*case\(s\) checked.*", text)
    return found, summary[-1] if summary else text.strip().splitlines()[-1:][0]


def show(label: str, found: Measured, summary: str = "") -> None:
    print(f"  {label:<10} {found.seconds:8.1f} s  {found.max_rss_bytes / 2**20:8.0f} MB"
          f"  exit {found.returncode}  {summary}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--baseline-src", type=Path, default=None,
                        help="a source tree (its src/ folder) to run the same files with")
    parser.add_argument("--findings", type=int, default=1000, help="one defect per N cases")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        idle = measure(SRC, ["-c", "import fcbench.cli"], work / "idle.log")
        show("import", idle)
        trees = [("this tree", SRC)] + ([("baseline", args.baseline_src)]
                                        if args.baseline_src else [])
        for lines in args.lines:
            folder = work / f"d{lines}"
            write_dataset(folder, lines, args.findings)
            size = (folder / "big.jsonl").stat().st_size
            print(f"{lines} lines ({size / 2**20:.0f} MB):", flush=True)
            for label, src in trees:
                found, summary = validate(src, folder, work / f"{label}.log")
                show(label, found, summary)
            (folder / "big.jsonl").unlink()


if __name__ == "__main__":
    main()
