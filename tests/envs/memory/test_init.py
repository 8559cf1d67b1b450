"""The memory package's registry, its light import, and the call dispatcher running it."""

from __future__ import annotations

import importlib
import math
import subprocess
import sys

import pytest

from fcbench.envs.memory import MEMORY_BACKENDS, MEMORY_CLASSES
from fcbench.envs.memory.kv import MemoryKV
from fcbench.envs.memory.rec_sum import MemoryRecSum
from fcbench.envs.multi_turn.dispatch import Dispatcher, instance_label


def test_every_backend_is_registered_under_its_official_class_name() -> None:
    assert sorted(MEMORY_CLASSES) == sorted(f"MemoryAPI_{b}" for b in MEMORY_BACKENDS)
    for target in MEMORY_CLASSES.values():
        module, _, name = target.partition(":")
        assert callable(getattr(importlib.import_module(module), name))


def test_the_backends_import_without_numpy() -> None:
    code = ("import sys, fcbench.envs.memory.kv, fcbench.envs.memory.vector, "
            "fcbench.envs.memory.rec_sum, fcbench.dataset.agentic, "
            "fcbench.envs.memory.weights; "
            "assert 'numpy' not in sys.modules and 'tokenizers' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(("cls", "calls", "expected"), [
    ("MemoryAPI_kv", ["core_memory_add(key='pet_name', value='Rex')",
                      "core_memory_key_search(query='pet')", "core_memory_retrieve(key=['x'])"],
     # One key of two words, query one of them: idf ln 2, times 1 + 2.5 / (1.5 * 1 + 1).
     ['{"status": "Key-value pair added."}', f'{{"ranked_results": [[{2 * math.log(2)!r}, '
      '"pet_name"]]}', "Error during execution: unhashable type: 'list'"]),
    ("MemoryAPI_rec_sum", ["memory_append(text='Likes tea.')", "memory_retrieve()"],
     ['{"status": "Memory appended."}', '{"memory_content": "Likes tea."}']),
])
def test_call_strings_run_through_the_dispatcher(
    cls: str, calls: list[str], expected: list[str]
) -> None:
    instance = MemoryKV() if cls == "MemoryAPI_kv" else MemoryRecSum()
    label = instance_label("model_eval", "memory_kv_0-customer-0", cls)
    assert Dispatcher({cls: instance}, {cls: label}).execute(calls) == expected
