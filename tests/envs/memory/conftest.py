"""Fixtures of the memory tests: the official backends in a child process, the MiniLM weights.

`official_memory` runs `official_oracle.py` with the official wheel extracted; the kv and
rec_sum backends need `rank_bm25` (test extra), the vector one sentence-transformers, torch,
FAISS (installed by .ci/run) and the all-MiniLM-L6-v2 weights, which the child reads from a
Hugging Face cache folder made here out of the located weights (offline: nothing is
downloaded). What is missing skips its tests with the reason, except under CI (`CI=true`),
where it fails them: CI must really run the oracle comparisons.
"""

from __future__ import annotations

import copy
import importlib.util
import os
import pickle
import re
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ORACLE = Path(__file__).with_name("official_oracle.py")
HUB_REVISION = "c9745ed1d9f207416be6d2e6f8de32d1f16199bf"


def require(condition: bool, reason: str) -> None:
    """Skip when `condition` is false, or fail under CI, where these tests must run."""
    if condition:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI must run this test: {reason}")
    pytest.skip(reason)


def installed(*modules: str) -> bool:
    return all(importlib.util.find_spec(module) is not None for module in modules)


@pytest.fixture(scope="session")
def minilm_dir() -> Path:
    """The all-MiniLM-L6-v2 folder fcbench finds here (never downloads)."""
    pytest.importorskip("numpy")
    from fcbench.envs.memory.weights import EmbeddingUnavailable, locate_model

    try:
        return locate_model(download=False)
    except EmbeddingUnavailable as exc:
        require(False, str(exc))
        raise


@pytest.fixture(scope="session")
def use_minilm(minilm_dir: Path) -> Iterator[Path]:
    """FCBENCH_EMBEDDING_MODEL pointing at the weights for the whole session."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FCBENCH_EMBEDDING_MODEL", str(minilm_dir))
        yield minilm_dir


def hub_cache_layout(root: Path, model: Path) -> Path:
    """A Hugging Face cache holding `model` as sentence-transformers/all-MiniLM-L6-v2."""
    repo = root / "hub" / "models--sentence-transformers--all-MiniLM-L6-v2"
    snapshot = repo / "snapshots" / HUB_REVISION
    for source in model.rglob("*"):
        if source.is_file():
            target = snapshot / source.relative_to(model)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(source.resolve())
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "main").write_text(HUB_REVISION)
    return root


class Oracle:
    """Talks to the official backends in the child process."""

    def __init__(self, process: subprocess.Popen[bytes], vector: str | None) -> None:
        self._process = process
        self.vector_missing = vector  # why the vector backend cannot run, or None

    def request(self, **request: Any) -> dict[str, Any]:
        assert self._process.stdin is not None and self._process.stdout is not None
        data = pickle.dumps(request)
        self._process.stdin.write(struct.pack("<Q", len(data)) + data)
        self._process.stdin.flush()
        header = self._process.stdout.read(8)
        assert len(header) == 8, "the official oracle process died (see its stderr log)"
        (size,) = struct.unpack("<Q", header)
        answer: dict[str, Any] = pickle.loads(self._process.stdout.read(size))
        if "error" in answer:
            raise AssertionError(f"the official backend failed: {answer['error']}")
        result: dict[str, Any] = answer["ok"]
        return result

    def encode(self, texts: list[str], batch: bool) -> Any:
        require(self.vector_missing is None, str(self.vector_missing))
        return self.request(cmd="encode", texts=texts, batch=batch)["vectors"]

    def run(self, cls: str, ops: list[Any], config: dict[str, Any] | None = None,
            flush: bool = False) -> dict[str, Any]:
        if cls == "MemoryAPI_vector":
            require(self.vector_missing is None, str(self.vector_missing))
        return self.request(cmd="run", **{"class": cls}, ops=ops, config=config, flush=flush)


@pytest.fixture(scope="session")
def official_memory(
    official_root: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Oracle]:
    require(installed("rank_bm25"), "rank_bm25 (test extra) is needed by the official memory_kv")
    root = tmp_path_factory.mktemp("official_memory")
    env = dict(os.environ, HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false",
               OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    vector = _vector_missing()
    if vector is None:
        from fcbench.envs.memory.weights import locate_model

        env["HF_HOME"] = str(hub_cache_layout(root / "hf", locate_model(download=False)))
    log = open(root / "oracle.log", "wb")  # noqa: SIM115 - lives as long as the process
    process = subprocess.Popen(
        [sys.executable, str(ORACLE), str(official_root)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, env=env,
    )
    try:
        yield Oracle(process, vector)
    finally:
        assert process.stdin is not None
        process.stdin.close()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def _vector_missing() -> str | None:
    if not installed("sentence_transformers", "faiss", "torch"):
        return "the official vector backend needs sentence-transformers, torch and faiss-cpu"
    if not installed("numpy"):
        return "numpy is missing"
    from fcbench.envs.memory.weights import EmbeddingUnavailable, locate_model

    try:
        locate_model(download=False)
    except EmbeddingUnavailable as exc:
        return str(exc)
    return None


def mine(instance: Any, ops: list[Any]) -> list[tuple[Any, ...]]:
    """fcbench's outcomes for the same calls, in the oracle's form."""
    outcomes: list[tuple[Any, ...]] = []
    for name, args, kwargs in ops:
        try:
            outcomes.append(("ok", copy.deepcopy(getattr(instance, name)(*args, **kwargs))))
        except Exception as exc:
            outcomes.append(("raise", type(exc).__name__, str(exc)))
    return outcomes


def close(expected: Any, actual: Any, tolerance: float, where: str = "") -> list[str]:
    """Differences between two outcome trees; floats may differ by `tolerance`."""
    if isinstance(expected, float) and isinstance(actual, float):
        return [] if abs(expected - actual) <= tolerance else [f"{where}: {expected} != {actual}"]
    if type(expected) is not type(actual):
        return [f"{where}: {expected!r} != {actual!r}"]
    if isinstance(expected, dict):
        if list(expected) != list(actual):
            return [f"{where}: keys {list(expected)} != {list(actual)}"]
        return [d for key in expected
                for d in close(expected[key], actual[key], tolerance, f"{where}.{key}")]
    if isinstance(expected, (list, tuple)):
        if len(expected) != len(actual):
            return [f"{where}: {expected!r} != {actual!r}"]
        return [d for i, (e, a) in enumerate(zip(expected, actual, strict=True))
                for d in close(e, a, tolerance, f"{where}[{i}]")]
    return [] if expected == actual else [f"{where}: {expected!r} != {actual!r}"]


@pytest.fixture(scope="session")
def memory_sentences(fetched_home: Path) -> list[str]:
    """Sentences of the official prerequisite conversations: realistic memory texts."""
    from fcbench.dataset.load import load_memory_prereqs

    sentences: list[str] = []
    for case in load_memory_prereqs("memory_kv"):
        for turn in case.question:
            for message in turn:
                parts = re.split(r"(?<=[.!?])\s+", message["content"])
                sentences.extend(part.strip() for part in parts if part.strip())
    return sentences
