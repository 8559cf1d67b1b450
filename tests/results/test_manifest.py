"""`results.manifest`: which differences between a folder's manifest and a run refuse it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fcbench.results.manifest import ManifestError, check_resumable, configuration_clash
from fcbench.results.store import write_json_atomic


class Described:
    """A backend as far as the manifest reads it."""

    name = "openai"

    def __init__(self, **described: Any) -> None:
        self.described = {"backend": "openai-compatible", "endpoints": ["http://a/v1"],
                          "sampling": {"temperature": 0.001, "top_p": None,
                                       "max_tokens": None, "extra_body": {}},
                          "timeout": 300.0, "output_format": None, **described}

    def describe(self) -> dict[str, Any]:
        return self.described


DATASET = {"release": "BFCL_v4", "checksum": "sha256:x"}


def old_manifest(tmp_path: Path, **changes: Any) -> Path:
    folder = tmp_path / "m"
    manifest = {"mode": "fc", "fc_names": "underscore", "fc_args": "json_string",
                "model": "m", **Described().describe(), "dataset": DATASET, **changes}
    write_json_atomic(folder / "model.json", manifest)
    return folder


def check(folder: Path, backend: Described | None = None, **fields: Any) -> None:
    check_resumable(folder, model=fields.get("model", "m"), mode=fields.get("mode", "fc"),
                    backend=backend or Described(),  # type: ignore[arg-type]
                    dataset=fields.get("dataset", DATASET))


def test_the_same_configuration_on_other_endpoints_and_timeouts_resumes(tmp_path: Path) -> None:
    folder = old_manifest(tmp_path)
    check(folder, Described(endpoints=["http://127.0.0.1:9999/v1"], timeout=5.0))
    check(folder, dataset={**DATASET, "checksum": "sha256:other categories"})
    check(tmp_path / "no-manifest-yet")


@pytest.mark.parametrize(("backend", "fields", "named"), [
    (Described(sampling={"temperature": 0.7, "top_p": None, "max_tokens": None,
                         "extra_body": {}}), {}, "sampling.temperature: 0.001 -> 0.7"),
    (Described(sampling={"temperature": 0.001, "top_p": None, "max_tokens": None,
                         "extra_body": {"top_k": 1}}), {},
     'sampling.extra_body: {} -> {"top_k": 1}'),
    (Described(output_format="hermes"), {}, 'output_format: none -> "hermes"'),
    (None, {"model": "other"}, 'model: "m" -> "other"'),
    (None, {"dataset": {"release": "BFCL_v3"}}, 'release: "BFCL_v4" -> "BFCL_v3"'),
    (None, {"mode": "prompt"}, 'mode: "fc" -> "prompt"'),
])
def test_a_different_setting_is_refused_naming_old_and_new(
    tmp_path: Path, backend: Described | None, fields: dict[str, Any], named: str
) -> None:
    folder = old_manifest(tmp_path)
    with pytest.raises(ManifestError) as refused:
        check(folder, backend, **fields)
    message = str(refused.value)
    assert named in message and "\n" not in message
    assert "--overwrite" in message and "--name" in message


def test_fields_an_older_manifest_lacks_are_not_compared() -> None:
    old = {"model": "m", "mode": "fc"}
    new = {"model": "m", "mode": "fc", "sampling": {"temperature": 0.5}, "family": "qwen"}
    assert configuration_clash(old, new) is None
    assert configuration_clash({**old, "family": None}, new) == ['family: none -> "qwen"']


def test_many_differences_are_shown_three_and_counted(tmp_path: Path) -> None:
    folder = old_manifest(tmp_path)
    with pytest.raises(ManifestError, match=r"\(old -> new: model: .*; and 1 more\)"):
        check(folder, Described(backend="anthropic", output_format="x"), model="o", mode="fc",
              dataset={"release": "v"})


def test_a_model_seed_is_part_of_the_configuration() -> None:
    """`sampling.seed` is recorded only when set, so a manifest without it had no seed: a run
    with one (or another one) is refused, a run without one resumes."""
    unseeded = Described().describe()
    seeded = Described(sampling={**unseeded["sampling"], "seed": 3}).describe()
    assert configuration_clash(unseeded, seeded) == ["sampling.seed: none -> 3"]
    assert configuration_clash(seeded, unseeded) == ["sampling.seed: 3 -> none"]
    reseeded = {**seeded, "sampling": {**seeded["sampling"], "seed": 4}}
    assert configuration_clash(seeded, reseeded) == ["sampling.seed: 3 -> 4"]
    assert configuration_clash(unseeded, unseeded) is None


def test_a_model_json_holding_an_integer_past_pythons_limit_is_read(tmp_path: Path) -> None:
    """Python stops at 4,300 digits by default: such a model.json read as none at all (a
    run would start the folder afresh, losing its history) or left its model out of an
    evaluation ("not readable JSON"); it is read, and written back whole."""
    from fcbench import _json as fast_json
    from fcbench.decode.encoding import Encoding
    from fcbench.results.manifest import read_manifest

    data = {"mode": "fc", "fc_names": "underscore", "note": 10**5000,
            "runs": [{"n": -(10**4400)}]}
    write_json_atomic(tmp_path / "model.json", data)
    assert fast_json.loads_numbers((tmp_path / "model.json").read_text()) == data
    assert read_manifest(tmp_path) == data
    assert Encoding.from_file(tmp_path / "model.json").mode == "fc"
