"""A child process that runs the official memory backends, for the oracle tests.

Started by the `official_memory` fixture (conftest.py) with the extracted official wheel on
`sys.path`. It reads length-prefixed pickled requests on stdin and answers each on the
original stdout; everything the official code prints goes to stderr. Kept in its own process
because the official vector backend loads torch, sentence-transformers and FAISS at import
(which must not share a process with other OpenMP users) and prints warnings on stdout.

Requests (dicts, "cmd" says which):
  run     {"class", "config", "ops": [(method, args, kwargs)], "flush"}
          -> {"outcomes": [outcome], "rendered": [str], "state", "context"}
  prompt  {"class", "config", "question", "category", "scenario"} -> {"question"}
  flat    {"dim", "ops": [("add", id, vector) | ("remove", id) | ("search", vector, k)]}
          -> {"results": [[(id, score)] per search]}   (a bare FAISS IndexIDMap(IndexFlatIP))
  encode  {"texts", "batch"} -> {"vectors": float32 array}   (the official encoder's embeddings)
An outcome is ("ok", value) or ("raise", exception type name, message).
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import struct
import sys
from pathlib import Path
from typing import Any, BinaryIO

MODULES = {
    "MemoryAPI_kv": "memory_kv",
    "MemoryAPI_vector": "memory_vector",
    "MemoryAPI_rec_sum": "memory_rec_sum",
}
PACKAGE = "bfcl_eval.eval_checker.multi_turn_eval.func_source_code"


def _official_class(name: str) -> Any:
    import importlib

    return getattr(importlib.import_module(f"{PACKAGE}.{MODULES[name]}"), name)


def _instance(request: dict[str, Any]) -> Any:
    instance = _official_class(request["class"])()
    config = request.get("config")
    if config is not None:
        config = dict(config, model_result_dir=Path(config["model_result_dir"]))
        instance._load_scenario(copy.deepcopy(config))
    return instance


def _outcome(method: Any, args: list[Any], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    try:
        return ("ok", copy.deepcopy(method(*args, **kwargs)))  # later calls may change it
    except Exception as exc:
        return ("raise", type(exc).__name__, str(exc))


def _rendered(outcome: tuple[Any, ...]) -> str:
    """What the official executor feeds back to the model for this outcome."""
    if outcome[0] == "raise":
        return f"Error during execution: {outcome[2]}"
    value = outcome[1]
    if type(value) is str:
        return value
    if type(value) is dict:
        try:
            return json.dumps(value)
        except Exception:
            return str(value)
    return str(value)


def _state(instance: Any) -> Any:
    if hasattr(instance, "memory"):
        return {"memory": instance.memory}
    stores = {"core_memory": instance.core_memory, "archival_memory": instance.archival_memory}
    if isinstance(instance.core_memory, dict):
        return {name: dict(store) for name, store in stores.items()}
    import faiss

    return {
        name: {
            "store": dict(store._store),
            "next_id": store._next_id,
            "index_ids": [int(i) for i in faiss.vector_to_array(store._index.id_map)],
        }
        for name, store in stores.items()
    }


def _plain(value: Any) -> Any:
    """numpy scalars as Python numbers (they pickle, but compare clearer as floats)."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(item) for item in value)
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        return value.item()
    return value


def _run(request: dict[str, Any]) -> dict[str, Any]:
    instance = _instance(request)
    outcomes = []
    for name, args, kwargs in request["ops"]:
        outcomes.append(_outcome(getattr(instance, name), args, kwargs))
    rendered = [_rendered(outcome) for outcome in outcomes]
    if request.get("flush"):
        instance._flush_memory_to_local_file()
    return {
        "outcomes": _plain(outcomes),
        "rendered": rendered,
        "state": _plain(_state(instance)),
        "context": instance._dump_core_memory_to_context(),
    }


def _prompt(request: dict[str, Any]) -> dict[str, Any]:
    from bfcl_eval.model_handler.utils import add_memory_instruction_system_prompt

    instance = _instance(request)
    question = add_memory_instruction_system_prompt(
        copy.deepcopy(request["question"]), request["category"], request["scenario"], instance
    )
    return {"question": question}


def _flat(request: dict[str, Any]) -> dict[str, Any]:
    import faiss
    import numpy as np

    index = faiss.IndexIDMap(faiss.IndexFlatIP(request["dim"]))
    results = []
    for op in request["ops"]:
        if op[0] == "add":
            index.add_with_ids(np.asarray([op[2]], dtype=np.float32),
                               np.array([op[1]], dtype=np.int64))
        elif op[0] == "remove":
            index.remove_ids(np.array([op[1]], dtype=np.int64))
        else:
            scores, ids = index.search(np.asarray([op[1]], dtype=np.float32), op[2])
            pairs = zip(scores[0], ids[0], strict=True)
            results.append([(int(i), float(s)) for s, i in pairs if i != -1])
    return {"results": results}


def _encode(request: dict[str, Any]) -> dict[str, Any]:
    """Embeddings from the official module's own SentenceTransformer (one batch, or one
    call per text)."""
    import numpy as np

    _official_class("MemoryAPI_vector")
    import importlib

    encoder = importlib.import_module(f"{PACKAGE}.memory_vector").ENCODER
    texts = request["texts"]
    if request["batch"]:
        vectors = encoder.encode(texts, normalize_embeddings=True)
    else:
        vectors = [encoder.encode([text], normalize_embeddings=True)[0] for text in texts]
    return {"vectors": np.asarray(vectors, dtype=np.float32)}


def _read(stream: BinaryIO) -> Any:
    header = stream.read(8)
    if len(header) < 8:
        return None
    (size,) = struct.unpack("<Q", header)
    return pickle.loads(stream.read(size))


def _write(stream: BinaryIO, value: Any) -> None:
    data = pickle.dumps(value)
    stream.write(struct.pack("<Q", len(data)) + data)
    stream.flush()


def main() -> None:
    sys.path[:0] = [sys.argv[1], str(Path(__file__).resolve().parents[2])]
    import official  # tests/official.py: stand-ins for small libraries that are not installed

    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # the official code's prints must not reach the protocol stream
    sys.stdout = sys.stderr
    official.install_stand_ins(placeholders=False)  # a missing SDK must fail, not pretend
    handlers = {"run": _run, "prompt": _prompt, "flat": _flat, "encode": _encode}
    while True:
        request = _read(sys.stdin.buffer)
        if request is None:
            return
        try:
            answer = {"ok": handlers[request["cmd"]](request)}
        except Exception as exc:
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        _write(answers, answer)


if __name__ == "__main__":
    main()
