"""Whether a run asks anything (read-only), and the backend's check run before it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fcbench.core import categories
from fcbench.core.model import TestCase
from fcbench.layout import result_path
from fcbench.models.base import PreflightError
from fcbench.runner.preflight import check_backend, has_pending, key_hint

CATEGORY = categories.get("simple_python")


def cases(n: int) -> list[TestCase]:
    return [TestCase(f"simple_python_{i}", "simple_python", [[]], [], None) for i in range(n)]


def write(folder: Path, entries: list[dict[str, Any]]) -> Path:
    path = result_path(folder, CATEGORY)
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in entries) + '{"id": "torn')
    return path


def test_has_pending(tmp_path: Path) -> None:
    todo = [(CATEGORY, cases(2))]
    assert has_pending(tmp_path / "new", todo)
    path = write(tmp_path / "m", [{"id": "simple_python_0", "result": "x", "attempts": 1},
                                  {"id": "simple_python_1", "result": "x", "attempts": 1}])
    before = path.read_bytes()
    assert not has_pending(tmp_path / "m", todo)
    assert has_pending(tmp_path / "m", todo, overwrite=True)
    assert has_pending(tmp_path / "m", todo, rerun={"simple_python": {"simple_python_1"}})
    assert path.read_bytes() == before  # nothing repaired or rewritten
    write(tmp_path / "e", [{"id": "simple_python_0", "result": "x", "attempts": 1},
                           {"id": "simple_python_1", "error": "HTTP 500", "attempts": 8}])
    assert has_pending(tmp_path / "e", todo)


class Checked:
    name = "checked"
    fc_args = "json_string"

    def __init__(self, error: PreflightError | None) -> None:
        self.error = error
        self.checked = 0

    async def preflight(self) -> None:
        self.checked += 1
        if self.error is not None:
            raise self.error

    async def step(self, request: Any) -> Any:
        raise AssertionError

    def describe(self) -> dict[str, Any]:
        return {}

    async def aclose(self) -> None:
        return None


class Unchecked(Checked):
    preflight = None  # type: ignore[assignment]


def test_check_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    good = Checked(None)
    check_backend(good)  # type: ignore[arg-type]
    assert good.checked == 1
    with pytest.raises(PreflightError, match="boom"):
        check_backend(Checked(PreflightError("boom")))  # type: ignore[arg-type]
    check_backend(Unchecked(None))  # type: ignore[arg-type]  # no preflight: not checked
    monkeypatch.delenv("FCBENCH_TEST_KEY", raising=False)
    unset = r"; the key is read from FCBENCH_TEST_KEY \(unset\)"
    with pytest.raises(PreflightError, match=unset), key_hint("FCBENCH_TEST_KEY"):
        check_backend(Checked(PreflightError("refused", "auth")))  # type: ignore[arg-type]
    with pytest.raises(PreflightError, match=r"^refused$"), key_hint("FCBENCH_TEST_KEY"):
        check_backend(Checked(PreflightError("refused", "path")))  # type: ignore[arg-type]
