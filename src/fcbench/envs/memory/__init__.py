"""The memory backends of the agentic memory categories (`memory_kv`, `memory_vector`,
`memory_rec_sum`; spec §7.2, §2.4, §2.5, §8.1).

The classes follow the contract of `fcbench.envs.multi_turn` (no-argument constructor,
`_load_scenario(config, long_context=False)`, one public method per function doc returning
what the official returns, comparable state = public attributes), so the multi-turn call
dispatcher runs them unchanged. `MEMORY_CLASSES` maps the official class names to them.

How the official generation uses them, which the conversation loop must reproduce:

* Cases. Each memory category runs, per scenario (student, customer, finance, healthcare,
  notetaker), the scenario's prerequisite conversations
  (`memory_prereq_conversation/memory_<scenario>.json`, ids `<category>_prereq_<n>-<scenario>-<k>`,
  k from 0) and then its questions (`<category>_<n>-<scenario>-<k>`). A prereq depends on all
  earlier prereqs of its scenario (a chain, in file order) and a question on all of them;
  failed entries still release their dependants. Prereqs have no answer and are not scored.
  The entry's only class is `MemoryAPI_<backend>`, with
  `initial_config = {class: {"model_result_dir", "scenario", "test_id", "test_category"}}`
  (`base.initial_config` builds it; `model_result_dir` is `<result dir>/<model name, / -> _>`).
* Start of an entry: the backend is created and `_load_scenario` restores the scenario's
  `<scenario>_final.json` snapshot (not for the first prereq, k = 0), then the memory system
  prompt is added to turn 0 (`dataset.agentic.first_turn`), then the multi-turn loop runs.
  The backends' state is left out of the inference log's state entries, as upstream.
* End of a prereq (and only a prereq): `_flush_memory_to_local_file()` writes the entry's
  checkpoint and the scenario's final snapshot (`snapshots.py`, atomic). A prereq that fails
  during inference writes nothing, so the next one continues from the last good snapshot.

The vector backend needs the `memory` extra (numpy, tokenizers, safetensors) and the
all-MiniLM-L6-v2 weights (`weights.py`); kv and rec_sum need nothing beyond the core install.
"""

from __future__ import annotations

__all__ = ["MEMORY_BACKENDS", "MEMORY_CLASSES"]

MEMORY_CLASSES: dict[str, str] = {
    "MemoryAPI_kv": "fcbench.envs.memory.kv:MemoryKV",
    "MemoryAPI_vector": "fcbench.envs.memory.vector:MemoryVector",
    "MemoryAPI_rec_sum": "fcbench.envs.memory.rec_sum:MemoryRecSum",
}

MEMORY_BACKENDS: tuple[str, ...] = ("kv", "vector", "rec_sum")
"""The backend names, as in the category names `memory_<backend>`."""
