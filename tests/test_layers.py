"""The layer order (pyproject.toml's import-linter contracts, docs/design.md "Layers") and the
absence of import cycles, checked with every test run.

`lint-imports` checks the contracts; import cycles between modules are found here with
grimp (import-linter's graph), which reads every import statement: function-level and
`TYPE_CHECKING` imports count, so a cycle cannot hide inside a function.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"


def lint_imports(project: Path) -> subprocess.CompletedProcess[str]:
    """`lint-imports` on a project folder (its pyproject.toml, its src/ first on the path)."""
    script = Path(sys.executable).with_name("lint-imports")
    command = str(script) if script.is_file() else shutil.which("lint-imports")
    assert command, "lint-imports is not installed (pip install -e '.[test]')"
    # wide lines: a contract's name and its KEPT/BROKEN stay on one line
    env = {**os.environ, "PYTHONPATH": str(project / "src"), "COLUMNS": "250"}
    return subprocess.run([command, "--no-cache"], cwd=project, env=env, capture_output=True,
                          text=True, timeout=300, check=False)


def cycles(imports: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The import cycles of a module graph: each strongly connected set of two or more modules
    (or a module importing itself), sorted. Tarjan's algorithm, iterative."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(imports):
        if start in index:
            continue
        work = [(start, iter(sorted(imports.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            module, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(imports.get(target, ())))))
                elif target in on_stack:
                    low[module] = min(low[module], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[module])
            if low[module] == index[module]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == module:
                        break
                if len(members) > 1 or module in imports.get(module, ()):
                    found.append(sorted(members))
    return sorted(found)


def module_imports() -> dict[str, set[str]]:
    """fcbench's modules -> the fcbench modules each imports, at any depth of its code."""
    graph = grimp.build_graph("fcbench", cache_dir=None)
    return {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}


def test_the_layer_contracts_hold() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_no_module_imports_one_that_imports_it_back() -> None:
    imports = module_imports()
    assert "fcbench.check.registry" in imports  # the graph is fcbench's, function bodies read
    assert cycles(imports) == []


def test_cycles_are_found_at_any_length_and_only_there() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a", "e"}, "e": set(), "f": {"f"}}
    assert cycles(graph) == [["a", "b", "c"], ["f"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


@pytest.fixture(scope="module")
def project_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the project's contracts and sources, to break on purpose."""
    copy = tmp_path_factory.mktemp("layers")
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    shutil.copytree(SRC / "fcbench", copy / "src" / "fcbench",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def add_function_import(module: Path, statement: str) -> str:
    """Append a function whose body imports `statement`; return the original text."""
    original = module.read_text(encoding="utf-8")
    module.write_text(original + f"\n\ndef _layer_probe() -> None:\n    {statement}\n",
                      encoding="utf-8")
    return original


def test_a_checker_importing_a_reporter_breaks_the_layers_and_only_them(
    project_copy: Path,
) -> None:
    path = project_copy / "src" / "fcbench" / "check" / "kinds" / "ast.py"
    original = add_function_import(path, "from fcbench.report import table")
    try:
        result = lint_imports(project_copy)
    finally:
        path.write_text(original, encoding="utf-8")
    assert result.returncode != 0
    assert "1 broken" in result.stdout and "fcbench.check.kinds.ast -> fcbench.report" in \
        result.stdout.replace("\n", " "), result.stdout


@pytest.mark.parametrize(("module", "statement", "broken"), [
    # the data layer importing a checker (custom datasets did, for checker names)
    ("dataset/custom_spec.py", "from fcbench.check import registry", "layers"),
    # a checker that asks a backend (the agentic kind did, for prompt texts)
    ("check/kinds/agentic.py", "from fcbench.models import prompts", "backend"),
    # the package root (the public API) imported from below
    ("results/manifest.py", "import fcbench", "package root"),
])
def test_a_deliberate_violation_inside_a_function_breaks_the_contracts(
    project_copy: Path, module: str, statement: str, broken: str
) -> None:
    path = project_copy / "src" / "fcbench" / module
    original = add_function_import(path, statement)
    try:
        result = lint_imports(project_copy)
    finally:
        path.write_text(original, encoding="utf-8")
    assert result.returncode != 0
    broken_lines = [line.lower() for line in result.stdout.splitlines()
                    if line.endswith("BROKEN")]
    assert any(broken in line for line in broken_lines), result.stdout
    assert "fcbench." + module.removesuffix(".py").replace("/", ".") in result.stdout


def test_the_untouched_copy_keeps_the_contracts(project_copy: Path) -> None:
    """The copy itself is sound, so each break above is the probe's doing."""
    assert lint_imports(project_copy).returncode == 0
