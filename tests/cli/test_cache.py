"""`fcbench cache stats|prune`."""

from __future__ import annotations

import json
import time
from pathlib import Path

from click.testing import CliRunner, Result

from fcbench.cli import main
from fcbench.models.base import Reply
from fcbench.runner.cache import ResponseCache, reply_to_json


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def filled(folder: Path) -> Path:
    with ResponseCache(folder) as cache:
        for i, model in enumerate(["a", "a", "b"]):
            cache.put(f"k{i}", "openai-compatible", model, reply_to_json(Reply(str(i))) or "")
        cache.get("k0")
        cache._db.execute("UPDATE responses SET used = ? WHERE key = 'k1'", (time.time() - 9e6,))
    return folder


def test_stats(tmp_path: Path) -> None:
    folder = filled(tmp_path / "c")
    shown = cli("cache", "stats", "--cache-dir", str(folder))
    assert shown.exit_code == 0
    assert f"{folder / 'responses.sqlite3'}: 3 entries" in shown.output
    assert "1 replies served" in shown.output
    as_json = json.loads(cli("cache", "stats", "--cache-dir", str(folder), "--json").output)
    assert as_json["entries"] == 3 and as_json["models"] == [
        {"backend": "openai-compatible", "model": "a", "entries": 2, "hits": 1},
        {"backend": "openai-compatible", "model": "b", "entries": 1, "hits": 0}]


def test_stats_uses_the_environment_folder(tmp_path: Path) -> None:
    import os

    filled(Path(os.environ["FCBENCH_CACHE_DIR"]))  # the per-test folder (tests/conftest.py)
    assert "3 entries" in cli("cache", "stats").output


def test_prune(tmp_path: Path) -> None:
    folder = filled(tmp_path / "c")
    refused = cli("cache", "prune", "--cache-dir", str(folder))
    assert refused.exit_code == 2 and "say what to prune" in refused.stderr
    old = cli("cache", "prune", "--cache-dir", str(folder), "--older-than", "30")
    assert old.exit_code == 0 and "removed 1 entries, 2 left" in old.output
    by_model = cli("cache", "prune", "--cache-dir", str(folder), "--model", "b")
    assert "removed 1 entries, 1 left" in by_model.output
    assert "removed 1 entries, 0 left" in cli("cache", "prune", "--cache-dir", str(folder),
                                               "--all").output


def test_no_cache_yet_or_a_broken_one(tmp_path: Path) -> None:
    missing = cli("cache", "stats", "--cache-dir", str(tmp_path / "none"))
    assert missing.exit_code == 2 and "no response cache in" in missing.stderr
    assert not (tmp_path / "none").exists()  # looking does not create it
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "responses.sqlite3").write_bytes(b"x" * 4096)
    broken = cli("cache", "stats", "--cache-dir", str(tmp_path / "bad"))
    assert broken.exit_code == 2 and broken.stderr.count("\n") == 1
    assert "not a usable response cache" in broken.stderr


def test_an_older_cache_file_is_emptied_with_one_line(tmp_path: Path) -> None:
    from runner.test_cache import schema_1_file

    schema_1_file(tmp_path / "old", {"k": "{}", "j": "{}"})
    shown = cli("cache", "stats", "--cache-dir", str(tmp_path / "old"))
    assert shown.exit_code == 0 and "0 entries" in shown.output
    assert shown.stderr == ("fcbench: 2 entries of an older cache format (replies as read, "
                            "not as received) dropped\n")
    assert cli("cache", "stats", "--cache-dir", str(tmp_path / "old")).stderr == ""
