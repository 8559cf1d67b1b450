"""The official executable sanity-check data: known-good calls to the web services.

The release keeps them in `unused_datasets/executable_eval_sanity_check/`:

* `api_status_check_ground_truth_executable.json`: one line per probe, `{"idx", "ground_truth":
  [call], "execution_result": [value], "execution_result_type": [kind]}`, a call of each
  web-service function with the answer it gave when the file was made (28 probes, 19
  functions);
* `api_status_check_ground_truth_rest.json`: line n is `{"idx": n, "ground_truth": call}`, a
  request that answers `rest_n` (its response is compared with `rest_n`'s sample response).

Two readers need them: the live preflight, which asks each web API once before a run (as the
official tool did before scoring executable categories), and the ground-truth model, whose
answer to a `rest` case is that case's request (the `rest` answer file holds only a sample
response).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fcbench.dataset.fetch import DEFAULT_RELEASE, DataError
from fcbench.dataset.source import Source, source
from fcbench.layout import exec_sanity_file


@dataclass(frozen=True)
class Probe:
    """One known-good call: what it should give (`expected`, compared by `result_type`) for
    an executable probe; for a REST probe, the `rest` case whose sample response it matches."""

    call: str
    expected: Any = None
    result_type: str = ""
    rest_id: str = ""

    @property
    def function(self) -> str:
        """The called function's name (`requests.get` for REST probes)."""
        return self.call.split("(", 1)[0].strip()


def executable_probes(
    release: str = DEFAULT_RELEASE, data_root: Path | str | None = None
) -> list[Probe]:
    """The executable probes, in file order (empty when the data has no such file)."""
    src = source(release, data_root)
    probes: list[Probe] = []
    for where, entry in _entries(src, "executable"):
        try:
            (call,) = entry["ground_truth"]
            (expected,) = entry["execution_result"]
            (result_type,) = entry["execution_result_type"]
        except (KeyError, TypeError, ValueError):
            raise DataError(f"{where}: not a one-call sanity-check probe") from None
        probes.append(Probe(str(call), expected, str(result_type)))
    return probes


def rest_probes(release: str = DEFAULT_RELEASE, data_root: Path | str | None = None) -> list[Probe]:
    """The REST probes: line n answers `rest_n` (empty when the data has no such file)."""
    src = source(release, data_root)
    probes: list[Probe] = []
    for index, (where, entry) in enumerate(_entries(src, "rest")):
        call = entry.get("ground_truth")
        if not isinstance(call, str):
            raise DataError(f"{where}: the probe's ground_truth is not a call string")
        probes.append(Probe(call, rest_id=f"rest_{index}"))
    return probes


def rest_calls(src: Source) -> dict[str, str]:
    """`rest` case id -> the request that answers it (empty when the data has no probes)."""
    return {p.rest_id: p.call for p in rest_probes(src.release, src.root)}


def _entries(src: Source, kind: str) -> list[tuple[str, dict[str, Any]]]:
    rel = exec_sanity_file(kind)
    if not src.has(rel):
        return []
    return [(f"{src.label(rel)}, line {number}", entry) for number, entry in src.lines(rel)]
