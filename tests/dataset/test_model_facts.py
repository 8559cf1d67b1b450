"""Issue 33 item 5: the official registry's model facts (display name, link, organisation,
licence, token prices) parsed from the release's `model_config.py` at fetch time, never
imported, stored checksummed beside the release, and a cache from before them handled."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fcbench.cli import main
from fcbench.dataset.fetch import CorruptDataError, clear_caches, release_path
from fcbench.dataset.model_facts import (
    FACTS_CHECKSUM,
    MODEL_CONFIG,
    MODEL_FACTS,
    extract_model_facts,
    has_model_facts,
    load_model_facts,
)

HAND_MADE = '''
from dataclasses import dataclass
from some.where import Handler, PRICE

@dataclass
class ModelConfig:
    model_name: str

api_inference_model_map = {
    "acme-1-FC": ModelConfig(
        model_name="acme-1",
        display_name="Acme-1 (FC)",
        url="https://acme.example/acme-1",
        org="Acme",
        license="Proprietary",
        model_handler=Handler,
        input_price=1.25,
        output_price=10,
        is_fc_model=True,
    ),
    "acme-2": ModelConfig(
        display_name="Acme-2 " + "(Prompt)",
        url=f"https://acme.example/{PRICE}",
        org=None,
        license=["x"],
        input_price=PRICE,
        output_price=True,
    ),
    "not-a-config": dict(display_name="nope"),
}
local_inference_model_map = {
    "Org/Open-7B-FC": ModelConfig(display_name="Open-7B (FC)", org="Org",
                                  license="apache-2.0", input_price=None, output_price=None),
    "acme-1-FC": ModelConfig(display_name="Acme-1 again"),
}
MODEL_CONFIG_MAPPING = {**api_inference_model_map, **local_inference_model_map}
'''


def test_only_literal_keyword_values_of_model_config_calls_are_facts() -> None:
    facts = extract_model_facts(HAND_MADE)
    assert set(facts) == {"acme-1-FC", "acme-2", "Org/Open-7B-FC"}  # no dict(...), no **merge
    assert facts["acme-1-FC"] == {"display_name": "Acme-1 again"}  # the later map wins
    assert facts["acme-2"] == {}  # an expression, a name, an f-string, None text, a bool price
    assert facts["Org/Open-7B-FC"] == {"display_name": "Open-7B (FC)", "organization": "Org",
                                       "license": "apache-2.0", "input_price": None,
                                       "output_price": None}
    first = extract_model_facts(HAND_MADE.split("local_inference_model_map")[0])["acme-1-FC"]
    assert first == {"display_name": "Acme-1 (FC)", "url": "https://acme.example/acme-1",
                     "organization": "Acme", "license": "Proprietary", "input_price": 1.25,
                     "output_price": 10.0}
    assert isinstance(first["output_price"], float)
    with pytest.raises(SyntaxError):
        extract_model_facts("api_inference_model_map = {")


def _wheel_source(wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as zf:
        return zf.read(MODEL_CONFIG).decode("utf-8")


def _block(source: str, name: str) -> str:
    """The text of `"name": ModelConfig(...)` in the registry's source (up to its `),`)."""
    start = source.index(f'    "{name}": ModelConfig(')
    return source[start: source.index("\n    ),", start)]


def _keyword(block: str, keyword: str) -> Any:
    found = re.search(rf"\n\s+{keyword}=(.*),\n", block + ",\n")
    assert found is not None, (keyword, block)
    text = found.group(1)
    if text == "None":
        return None
    if text.startswith('"'):
        return json.loads(text)
    return float(text)


def test_the_real_registry_gives_what_its_source_says(bfcl_wheel: Path) -> None:
    """Every registry entry is found (as many names as `"...": ModelConfig(` in the text), and
    a few known models' facts equal the keyword values written in the wheel's source."""
    source = _wheel_source(bfcl_wheel)
    facts = extract_model_facts(source)
    named = set(re.findall(r'^    "([^"]+)": ModelConfig\(', source, flags=re.M))
    assert set(facts) == named and len(named) > 100
    known = ["gpt-4o-2024-11-20-FC", "gorilla-openfunctions-v2", "Qwen/Qwen3-8B-FC",
             sorted(named)[0], sorted(named)[-1]]
    fields = {"display_name": "display_name", "url": "url", "organization": "org",
              "license": "license", "input_price": "input_price", "output_price": "output_price"}
    for name in known:
        block = _block(source, name)
        assert facts[name] == {fact: _keyword(block, kw) for fact, kw in fields.items()}, name
    assert facts["gpt-4o-2024-11-20-FC"]["input_price"] is not None  # a priced API model


def _source_folder(tmp_path: Path, config: str | None = HAND_MADE) -> Path:
    """A folder laid out like an unpacked wheel: one data file and the registry module."""
    root = tmp_path / "src"
    data = root / "bfcl_eval" / "data"
    data.mkdir(parents=True)
    (data / "BFCL_v4_simple_python.json").write_text('{"id": "simple_python_0"}\n')
    constants = root / "bfcl_eval" / "constants"
    constants.mkdir()
    if config is not None:
        (constants / "model_config.py").write_text(config)
    return root


def test_fetch_stores_the_facts_checksummed_beside_the_release(
    empty_home: Path, tmp_path: Path
) -> None:
    from fcbench.dataset.install import fetch

    target = fetch("9.9.9", _source_folder(tmp_path))
    stored = json.loads((target / MODEL_FACTS).read_text())
    assert stored["_release"] == "9.9.9" and stored["_missing"] is False
    assert stored["models"] == extract_model_facts(HAND_MADE)
    assert has_model_facts(target)
    assert load_model_facts("9.9.9") == extract_model_facts(HAND_MADE)
    (target / MODEL_FACTS).write_text(json.dumps({**stored, "models": {}}))
    clear_caches()
    with pytest.raises(CorruptDataError, match=r"model_facts\.json"):
        load_model_facts("9.9.9")


def test_a_release_without_a_registry_has_no_facts_but_installs(
    empty_home: Path, tmp_path: Path
) -> None:
    from fcbench.dataset.install import fetch

    target = fetch("9.9.9", _source_folder(tmp_path, config="def broken(:\n"))
    assert json.loads((target / MODEL_FACTS).read_text())["_missing"] is True
    assert load_model_facts("9.9.9") == {}


def test_the_download_path_stores_the_facts_too(
    empty_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --from, the wheel pip downloads goes through the same extraction (pip itself
    stood in for: a hand-made wheel)."""
    from fcbench.dataset import install

    wheel = tmp_path / "bfcl_eval-9.9.9-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("bfcl_eval/data/BFCL_v4_simple_python.json", '{"id": "simple_python_0"}\n')
        zf.writestr(MODEL_CONFIG, HAND_MADE)
    monkeypatch.setattr(install, "pip_download", lambda release, dest: wheel)
    install.fetch("9.9.9")
    assert load_model_facts("9.9.9") == extract_model_facts(HAND_MADE)


def test_a_cache_from_before_the_facts_gains_them_by_fetching_again(
    empty_home: Path, tmp_path: Path
) -> None:
    """An older fcbench's cache (no facts file, no checksum for it) still reads (None, no
    crash); `fcbench data fetch` without --force then installs the facts instead of saying
    "already present"."""
    from fcbench.dataset.install import fetch

    source = _source_folder(tmp_path)
    target = fetch("9.9.9", source)
    manifest = json.loads((target / "manifest.json").read_text())
    del manifest[FACTS_CHECKSUM]
    (target / "manifest.json").write_text(json.dumps(manifest))
    (target / MODEL_FACTS).unlink()
    clear_caches()
    assert load_model_facts("9.9.9") is None and not has_model_facts(target)
    result = CliRunner().invoke(main, ["data", "fetch", "--release", "9.9.9",
                                       "--from", str(source)])
    assert result.exit_code == 0, result.output
    assert "installed" in result.output and "already present" not in result.output
    assert load_model_facts("9.9.9") == extract_model_facts(HAND_MADE)
    again = CliRunner().invoke(main, ["data", "fetch", "--release", "9.9.9",
                                      "--from", str(source)])
    assert "already present" in again.output
    assert release_path("9.9.9") == target
