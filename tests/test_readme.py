"""The README's examples run: every ```bash and ```python snippet is executed, offline, in a
fresh folder with the fetched release as FCBENCH_HOME, so an example that breaks fails here.

A snippet that cannot run offline says why right above it, in an HTML comment GitHub does not
show: `<!-- readme-test: skip needs-endpoint -->` (a model server or a hosted API) or
`<!-- readme-test: skip needs-network -->` (pip, PyPI). Those are the only skips, and
`SKIPPED` below lists each one by its first line, so a new skip is a visible change here.
The folder the snippets run in holds what they say the reader already has: `result/` with
two models' results (`my-model`, `gpt-4o-FC`; the ground truth's, a few cases each) and
`score/` with their scores.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SRC = ROOT / "src"
RUNNABLE = ("bash", "python")
MARKER = re.compile(r"<!-- readme-test: skip (needs-endpoint|needs-network) -->")

SKIPPED = {
    "python -m pip install '.[memory,report]' && fcbench data fetch && fcbench data fetch-"
    "embeddings && fcbench run --model ground-truth --categories all": "needs-network",
    "python -m pip install -e '.[test]' && python -m pytest -n auto": "needs-network",
    "fcbench run --model Qwen/Qwen3-8B --base-url http://localhost:8000/v1 --concurrency 64":
        "needs-endpoint",
    "fcbench run --model gpt-4o-2024-08-06 --base-url https://api.openai.com/v1   # FC mode "
    "(tools)": "needs-endpoint",
    "vllm serve Qwen/Qwen3-8B          # any server with /v1/completions (vLLM, SGLang, "
    "llama.cpp)": "needs-endpoint",
    "fcbench data fetch                       # the bfcl-eval 2026.3.23 data, via pip, cached":
        "needs-network",
    'fcbench.run("Qwen/Qwen3-8B", base_url="http://localhost:8000/v1", concurrency=64)':
        "needs-endpoint",
}
"""Every skipped snippet: its first line -> why (the marker's reason)."""


@dataclass(frozen=True)
class Snippet:
    language: str
    line: int
    """Where its fence opens in README.md (1-based)."""
    code: str
    skip: str | None
    """The marker's reason, or None: it runs."""

    @property
    def first_line(self) -> str:
        """Its first line that does something (not blank, a comment or an import)."""
        for line in self.code.splitlines():
            if line.strip() and not line.startswith(("#", "import ", "from ")):
                return line
        return ""


def snippets(text: str) -> list[Snippet]:
    """The README's fenced ```bash / ```python blocks, with the skip marker right above."""
    found: list[Snippet] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        fence = lines[index]
        if not fence.startswith("```") or fence == "```":
            index += 1
            continue
        end = lines.index("```", index + 1)
        language = fence[3:].strip()
        if language in RUNNABLE:
            above = lines[index - 1] if index else ""
            marker = MARKER.fullmatch(above.strip())
            found.append(Snippet(language, index + 1, "\n".join(lines[index + 1:end]),
                                 marker.group(1) if marker else None))
        index = end + 1
    return found


SNIPPETS = snippets(README.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def given_results(fetched_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding `result/` and `score/` as the README's readers have them: two
    models' results, scored."""
    import fcbench

    folder = tmp_path_factory.mktemp("readme-given")
    for name in ("my-model", "gpt-4o-FC"):
        fcbench.run("ground-truth", categories=["simple_python", "live_simple"], limit=3,
                    name=name, result_dir=folder / "result", score_dir=folder / "score")
    return folder


def _environment(home: Path, bin_dir: Path) -> dict[str, str]:
    """The snippets' environment: this tree's fcbench first on the path, the fetched home,
    no response cache, and `fcbench` a command."""
    bin_dir.mkdir(exist_ok=True)
    command = bin_dir / "fcbench"
    command.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m fcbench.cli "$@"\n')
    command.chmod(0o755)
    env = dict(os.environ)
    env.update(FCBENCH_HOME=str(home), FCBENCH_CACHE="off",
               PYTHONPATH=os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")]),
               PATH=os.pathsep.join([str(bin_dir), env.get("PATH", "")]))
    return env


def run_snippet(
    snippet: Snippet, folder: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    if snippet.language == "python":
        argv = [sys.executable, "-c", snippet.code]
    else:
        argv = ["bash", "-e", "-o", "pipefail", "-c", snippet.code]
    return subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True,
                          timeout=600, check=False)


def test_every_skip_is_named_and_counted() -> None:
    skipped = {s.first_line: s.skip for s in SNIPPETS if s.skip is not None}
    assert skipped == SKIPPED
    assert len([s for s in SNIPPETS if s.skip is None]) >= 2  # something runs


RUNS = [s for s in SNIPPETS if s.skip is None]
"""The snippets run here; the others are named in `SKIPPED` and are not test items (a
skip would read like a test that ran)."""


@pytest.mark.parametrize("snippet", RUNS, ids=[f"{s.language}-line{s.line}" for s in RUNS])
def test_the_snippet_runs(snippet: Snippet, given_results: Path, fetched_home: Path,
                          tmp_path: Path) -> None:
    folder = tmp_path / "work"
    shutil.copytree(given_results, folder)
    outcome = run_snippet(snippet, folder, _environment(fetched_home, tmp_path / "bin"))
    assert outcome.returncode == 0, (
        f"README line {snippet.line} failed:\n{snippet.code}\n--- stdout\n{outcome.stdout}"
        f"\n--- stderr\n{outcome.stderr}")
