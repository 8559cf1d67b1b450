"""The official package from the wheel, importable for the length of a test module, and
ways into official code that cannot be imported whole.

Oracle tests run the official functions themselves (never copies of them): the wheel's
`bfcl_eval` package is extracted to a temporary folder and put first on `sys.path` by
tests/official.py (`importable`); on exit the path entry and every `bfcl_eval` module
imported meanwhile are removed again.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import official


@contextlib.contextmanager
def official_package(wheel: Path, folder: Path) -> Iterator[Path]:
    """Extract `bfcl_eval/` of the wheel into `folder` and make it importable (with the
    stand-ins of tests/official.py for any small library that is not installed)."""
    with official.importable(official.extract(wheel, folder)) as root:
        yield root / "bfcl_eval"


@contextlib.contextmanager
def official_modules(wheel: Path, folder: Path, *names: str) -> Iterator[list[Any]]:
    """The official modules of these dotted names, imported from the wheel; the test is
    skipped when one cannot be imported here (a missing third-party package)."""
    import pytest

    with official_package(wheel, folder):
        try:
            modules = [importlib.import_module(name) for name in names]
        except Exception as exc:  # pragma: no cover - depends on the environment
            pytest.fail(f"the official modules cannot be imported here: {exc!r}", pytrace=False)
        yield modules


def official_function(path: Path, name: str, names: dict[str, Any]) -> Any:
    """One top-level function of an official module, compiled alone with the globals it
    uses (for modules that cannot be imported whole without every vendor SDK)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    [node] = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
    namespace = dict(names)
    exec(compile(ast.Module(body=[node], type_ignores=[]), str(path), "exec"), namespace)
    return namespace[name]


def bare(cls: type, **attributes: Any) -> Any:
    """An instance made without its constructor, with only the attributes a method reads
    (handlers without clients or keys, backends without files)."""
    instance = cls.__new__(cls)
    for key, value in attributes.items():
        setattr(instance, key, value)
    return instance
