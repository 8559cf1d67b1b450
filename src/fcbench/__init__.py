"""fcbench: a faithful, fast, light re-implementation of the BFCL evaluation.

    import fcbench
    result = fcbench.run(my_model, categories=["simple_python", "multi_turn_base"])
    result.models["my_model"].overall                 # the V4 Overall, 0-1 (result.folder:
                                                      # "my_model-FC", where the files are)
    fcbench.evaluate("result/", score_dir="score/")   # score existing result files
    fcbench.load_dataset("simple_python")             # list[TestCase]

The names below are imported lazily (on first use), so `import fcbench` and `fcbench --help`
stay fast; type checkers see them as the real objects.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fcbench._version import __version__ as __version__

__all__ = [
    "Backend",
    "ChatRequest",
    "Encoding",
    "Evaluation",
    "GenerateResult",
    "Reply",
    "RunConfig",
    "RunResult",
    "TestCase",
    "Verdict",
    "evaluate",
    "generate",
    "load_dataset",
    "run",
]

if TYPE_CHECKING:
    from fcbench.api import evaluate, load_dataset
    from fcbench.core.model import TestCase, Verdict
    from fcbench.decode.encoding import Encoding
    from fcbench.evaluation.types import Evaluation
    from fcbench.models.base import Backend, ChatRequest, Reply
    from fcbench.pipeline import GenerateResult, RunResult, generate, run
    from fcbench.run_config import RunConfig

_WHERE = {
    "evaluate": "fcbench.api",
    "load_dataset": "fcbench.api",
    "run": "fcbench.pipeline",
    "generate": "fcbench.pipeline",
    "RunResult": "fcbench.pipeline",
    "GenerateResult": "fcbench.pipeline",
    "RunConfig": "fcbench.run_config",
    "Evaluation": "fcbench.evaluation.types",
    "TestCase": "fcbench.core.model",
    "Verdict": "fcbench.core.model",
    "Backend": "fcbench.models.base",
    "ChatRequest": "fcbench.models.base",
    "Reply": "fcbench.models.base",
    "Encoding": "fcbench.decode.encoding",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'fcbench' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
