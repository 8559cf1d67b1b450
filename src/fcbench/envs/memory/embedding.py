"""Sentence embeddings of all-MiniLM-L6-v2 with numpy alone (no torch), for the vector memory.

The official vector backend embeds with `SentenceTransformer("all-MiniLM-L6-v2", device="cpu")`
and `encode(..., normalize_embeddings=True)`. That model is a 6-layer BERT (hidden size 384,
12 heads, exact-erf GELU, LayerNorm eps 1e-12) followed by mean pooling over the tokens and L2
normalisation; texts are tokenised by the model's own `tokenizer.json` (lower-casing WordPiece,
`[CLS] ... [SEP]`) and truncated to the model's `max_seq_length` (256 tokens). This module runs
the same forward pass in float32 over the model's `model.safetensors`, reading the sizes from
its `config.json`: the vectors agree with sentence-transformers to about 3e-7 per component
(tests/envs/memory/test_embedding.py), and so do inner products to about 1e-6.

Each text is embedded on its own (no padding, no batching), so the same text always gives the
same bits: identical texts tie exactly in retrieval, as they do upstream. Vectors are cached
per text for the process (snapshots re-embed the same texts for every question of a scenario).
The matrix products run on one BLAS thread (through `threadpoolctl`, when installed), one
text at a time: on a shared or busy machine OpenBLAS's thread pool made them up to ten times
slower, and the official tool pins its math libraries to one thread for the same reason.

Only the vector memory backend needs this; its packages are the `memory` extra
(`pip install 'fcbench[memory]'`). Where the weights come from is `weights.py`'s concern.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fcbench.envs.memory.weights import EmbeddingUnavailable, locate_model

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Vector = npt.NDArray[np.float32]

__all__ = ["Encoder", "load_encoder"]

EXTRA_HINT = "pip install 'fcbench[memory]'"
_CACHE_SIZE = 20_000
_DEFAULT_MAX_SEQ_LENGTH = 256


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:
        raise EmbeddingUnavailable(
            f"the vector memory backend needs numpy, tokenizers and safetensors: {EXTRA_HINT}"
        ) from None
    return numpy


class Encoder:
    """A BERT sentence encoder (mean pooling, L2-normalised) over a model folder."""

    def __init__(self, model_dir: Path) -> None:
        np = _numpy()
        try:
            from safetensors.numpy import load_file
            from tokenizers import Tokenizer
        except ImportError:
            raise EmbeddingUnavailable(
                f"the vector memory backend needs tokenizers and safetensors: {EXTRA_HINT}"
            ) from None
        self.model_dir = model_dir
        try:
            config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
            self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
            weights = load_file(str(model_dir / "model.safetensors"))
        except Exception as exc:  # any unreadable or malformed file: one line, no traceback
            raise EmbeddingUnavailable(
                f"cannot load the embedding model in {model_dir}: {type(exc).__name__}: {exc}"
            ) from None
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=_max_seq_length(model_dir))
        self._np = np
        self._layers, self._embeddings = _arrange(np, weights, config, model_dir)
        self.dimension: int = int(config["hidden_size"])
        self._heads = int(config["num_attention_heads"])
        self._eps = np.float32(config.get("layer_norm_eps", 1e-12))
        self._cache: OrderedDict[str | tuple[str, str], Vector] = OrderedDict()
        self._lock = threading.Lock()
        self._compute = threading.Lock()
        self._threads = _blas_controller()

    def __deepcopy__(self, memo: dict[int, Any]) -> Encoder:
        """Shared, never copied: a backend instance may be deep-copied (state logs, forks)."""
        return self

    def __copy__(self) -> Encoder:
        return self

    def encode(self, text: str | tuple[str, str]) -> Vector:
        """The normalised embedding of a text or of a sentence pair (float32, read-only,
        cached)."""
        with self._lock:
            cached = self._cache.get(text)
            if cached is not None:
                self._cache.move_to_end(text)
                return cached
        if isinstance(text, tuple):
            encoding = self._tokenizer.encode(text[0], text[1])
        else:
            encoding = self._tokenizer.encode(text)
        with self._compute, self._one_blas_thread():
            vector = self._forward(encoding.ids, encoding.type_ids)
        vector.flags.writeable = False
        with self._lock:
            self._cache[text] = vector
            if len(self._cache) > _CACHE_SIZE:
                self._cache.popitem(last=False)
        return vector

    def _one_blas_thread(self) -> contextlib.AbstractContextManager[Any]:
        if self._threads is None:
            return contextlib.nullcontext()
        limit: contextlib.AbstractContextManager[Any] = self._threads.limit(
            limits=1, user_api="blas")
        return limit

    def _forward(self, ids: list[int], type_ids: list[int]) -> Vector:
        np = self._np
        words, positions, types, gamma, beta = self._embeddings
        length = len(ids)
        # BERT's order: (word + token type) + position.
        hidden = words[np.asarray(ids)] + types[np.asarray(type_ids)] + positions[:length]
        hidden = _layer_norm(np, hidden, gamma, beta, self._eps)
        for layer in self._layers:
            hidden = self._layer(hidden, layer)
        pooled = hidden.mean(axis=0, dtype=np.float32)
        norm = max(float(np.linalg.norm(pooled)), 1e-12)
        result: Vector = (pooled / np.float32(norm)).astype(np.float32)
        return result

    def _layer(self, hidden: Vector, w: dict[str, Vector]) -> Vector:
        np = self._np
        length, size = hidden.shape
        head_size = size // self._heads
        qkv = hidden @ w["qkv"] + w["qkv_bias"]
        q, k, v = (
            qkv[:, i * size:(i + 1) * size].reshape(length, self._heads, head_size)
            .transpose(1, 0, 2)
            for i in range(3)
        )
        scores = (q @ k.transpose(0, 2, 1)) * np.float32(1.0 / np.sqrt(head_size))
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ v).transpose(1, 0, 2).reshape(length, size)
        attended = context @ w["out"] + w["out_bias"]
        hidden = _layer_norm(np, hidden + attended, w["ln1"], w["ln1_bias"], self._eps)
        inner = _gelu(np, hidden @ w["ffn1"] + w["ffn1_bias"])
        output = inner @ w["ffn2"] + w["ffn2_bias"]
        return _layer_norm(np, hidden + output, w["ln2"], w["ln2_bias"], self._eps)


def _blas_controller() -> Any:
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController()


def _max_seq_length(model_dir: Path) -> int:
    """sentence-transformers' `max_seq_length` (sentence_bert_config.json), default 256."""
    try:
        config = json.loads((model_dir / "sentence_bert_config.json").read_text("utf-8"))
        return int(config.get("max_seq_length", _DEFAULT_MAX_SEQ_LENGTH))
    except (OSError, ValueError, TypeError, AttributeError):
        return _DEFAULT_MAX_SEQ_LENGTH


def _arrange(
    np: Any, weights: dict[str, Any], config: dict[str, Any], model_dir: Path
) -> tuple[list[dict[str, Vector]], tuple[Vector, ...]]:
    """Weights laid out for `x @ W` (transposed once), with query, key, value fused."""
    if config.get("model_type") != "bert" or config.get("hidden_act") != "gelu":
        raise EmbeddingUnavailable(
            f"{model_dir} is not a BERT model with GELU activations; only "
            "sentence-transformers/all-MiniLM-L6-v2 (or the same architecture) is supported"
        )
    prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""

    def get(name: str) -> Any:
        try:
            return np.ascontiguousarray(weights[prefix + name], dtype=np.float32)
        except KeyError:
            raise EmbeddingUnavailable(f"{model_dir}/model.safetensors lacks {name}") from None

    def linear(name: str) -> Any:
        return np.ascontiguousarray(get(name + ".weight").T)

    layers = []
    for index in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{index}."
        attention = p + "attention.self."
        layers.append({
            "qkv": np.concatenate([linear(attention + n) for n in ("query", "key", "value")], 1),
            "qkv_bias": np.concatenate([get(attention + n + ".bias") for n in
                                        ("query", "key", "value")]),
            "out": linear(p + "attention.output.dense"),
            "out_bias": get(p + "attention.output.dense.bias"),
            "ln1": get(p + "attention.output.LayerNorm.weight"),
            "ln1_bias": get(p + "attention.output.LayerNorm.bias"),
            "ffn1": linear(p + "intermediate.dense"),
            "ffn1_bias": get(p + "intermediate.dense.bias"),
            "ffn2": linear(p + "output.dense"),
            "ffn2_bias": get(p + "output.dense.bias"),
            "ln2": get(p + "output.LayerNorm.weight"),
            "ln2_bias": get(p + "output.LayerNorm.bias"),
        })
    embeddings = tuple(get("embeddings." + name) for name in (
        "word_embeddings.weight", "position_embeddings.weight", "token_type_embeddings.weight",
        "LayerNorm.weight", "LayerNorm.bias"))
    return layers, embeddings


def _layer_norm(np: Any, x: Vector, gamma: Vector, beta: Vector, eps: Any) -> Vector:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    result: Vector = centred / np.sqrt(variance + eps) * gamma + beta
    return result


# erfc(z) = t * exp(-z^2 + P(t)), t = 1 / (1 + z/2), z >= 0: relative error below 1.2e-7
# everywhere (a Chebyshev fit; Numerical Recipes' `erfcc`). Coefficients of P, highest first.
_ERFC_COEFFICIENTS = (0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807,
                      -0.18628806, 0.09678418, 0.37409196, 1.00002368, -1.26551223)


def _gelu(np: Any, x: Vector) -> Vector:
    """Exact GELU, x * Phi(x) = x/2 * erfc(-x / sqrt 2), to float32 accuracy."""
    z = np.abs(x) * np.float32(0.7071067811865476)
    t = np.float32(1.0) / (np.float32(1.0) + np.float32(0.5) * z)
    poly = np.full_like(t, _ERFC_COEFFICIENTS[0])
    for coefficient in _ERFC_COEFFICIENTS[1:]:
        poly *= t
        poly += np.float32(coefficient)
    tail = t * np.exp(poly - z * z)  # erfc(|x| / sqrt 2)
    result: Vector = np.float32(0.5) * x * np.where(x >= 0, np.float32(2.0) - tail, tail)
    return result


_ENCODERS: dict[Path, Encoder] = {}
_ENCODERS_LOCK = threading.Lock()


def load_encoder(model_dir: Path | str | None = None) -> Encoder:
    """The process-wide encoder for a model folder (`weights.locate_model` finds the default)."""
    key = locate_model(model_dir).resolve()
    with _ENCODERS_LOCK:
        encoder = _ENCODERS.get(key)
        if encoder is None:
            encoder = _ENCODERS[key] = Encoder(key)
    return encoder
