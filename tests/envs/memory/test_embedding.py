"""The numpy MiniLM encoder against the official tool's sentence-transformers encoder."""

from __future__ import annotations

import json
import random
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from fcbench.envs.memory.embedding import Encoder, _gelu
from fcbench.envs.memory.weights import EmbeddingUnavailable

from .conftest import Oracle

np = pytest.importorskip("numpy")

EDGE_TEXTS = [
    "", "   ", "a", "Hello, World!", "  café naïve Ünïcödé  ", "日本語のテキスト", "emoji 😀🎉 ok",
    "tabs\tand\nnewlines", "word " * 400,  # past 256 tokens: truncated
    "supercalifragilisticexpialidocious" * 5, "I like tea.", "i like tea",
]


def _texts(sentences: list[str]) -> list[str]:
    rng = random.Random(11)
    picked = rng.sample(sorted(set(sentences)), 60)
    long_ones = sorted(sentences, key=len)[-3:]
    return EDGE_TEXTS + picked + long_ones + [" ".join(picked[:40])]


@pytest.fixture(scope="module")
def ours(minilm_dir: Path, memory_sentences: list[str]) -> Any:
    """fcbench's embeddings of the texts, computed once for both official encodings (the
    encoder's determinism and cache have their own test below)."""
    encoder = Encoder(minilm_dir)
    started = time.perf_counter()
    vectors = np.stack([encoder.encode(text) for text in _texts(memory_sentences)])
    print(f"\nnumpy MiniLM: {len(vectors)} texts in {time.perf_counter() - started:.2f} s")
    return vectors


@pytest.mark.parametrize("batch", [True, False], ids=["batch", "one-by-one"])
def test_embeddings_match_sentence_transformers(
    official_memory: Oracle, ours: Any, memory_sentences: list[str], batch: bool
) -> None:
    texts = _texts(memory_sentences)
    expected = official_memory.encode(texts, batch=batch)
    actual = ours
    assert actual.shape == expected.shape == (len(texts), 384)
    assert float(np.abs(actual - expected).max()) < 1e-5
    # The retrieval scores: every pairwise inner product.
    assert float(np.abs(actual @ actual.T - expected @ expected.T).max()) < 1e-5


def test_encode_is_cached_deterministic_and_read_only(minilm_dir: Path) -> None:
    encoder = Encoder(minilm_dir)
    first = encoder.encode("the same text")
    assert encoder.encode("the same text") is first
    encoder._cache.clear()
    assert np.array_equal(encoder.encode("the same text"), first)  # same bits recomputed
    with pytest.raises(ValueError):
        first[0] = 1.0
    assert float(np.linalg.norm(first)) == pytest.approx(1.0, abs=1e-6)
    pair = encoder.encode(("first part", "second part"))
    assert not np.array_equal(pair, encoder.encode("first part second part"))


def test_gelu_is_exact_to_float32_precision() -> None:
    import math

    x = np.linspace(-12, 12, 20001, dtype=np.float32)
    exact = np.array([v * 0.5 * math.erfc(-v / math.sqrt(2)) for v in x.astype(float)])
    error = np.abs(_gelu(np, x).astype(float) - exact)
    assert float(np.max(error / np.maximum(np.abs(exact), 1e-3))) < 2e-6


def test_an_incomplete_model_folder_is_one_clear_error(tmp_path: Path, minilm_dir: Path) -> None:
    for name in ("config.json", "tokenizer.json"):
        shutil.copy(minilm_dir / name, tmp_path / name)
    (tmp_path / "model.safetensors").write_bytes(b"not safetensors")
    with pytest.raises(EmbeddingUnavailable, match="cannot load the embedding model"):
        Encoder(tmp_path)
    config = json.loads((minilm_dir / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({**config, "model_type": "roberta"}))
    shutil.copy(minilm_dir / "model.safetensors", tmp_path / "model.safetensors")
    with pytest.raises(EmbeddingUnavailable, match="not a BERT model"):
        Encoder(tmp_path)


def test_missing_extra_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "tokenizers", None)  # import fails
    with pytest.raises(EmbeddingUnavailable, match=r"pip install 'fcbench\[memory\]'"):
        Encoder(tmp_path)
