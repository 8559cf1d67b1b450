"""The public surface: `fcbench.__all__` names real, typed objects.

A user's script is type-checked with `mypy --strict`: the results of `fcbench.run(...)` are
known types all the way down (the lazy imports must not make them `Any`), and a misspelt
option is an error.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

USER_SCRIPT = '''
import fcbench

def model(messages: list[dict[str, object]], tools: list[dict[str, object]] | None) -> str:
    return "[f(a=1)]"

evaluation = fcbench.run(model, categories=["simple_python"], mode="prompt")
best = evaluation.models["model"]
reveal_type(best.overall)
reveal_type(best.categories["simple_python"].accuracy)
reveal_type(best.v4.multi_turn.accuracy)
reveal_type(fcbench.load_dataset("simple_python"))
reveal_type(fcbench.generate(model).generation.asked)
reveal_type(evaluation.folder)
fcbench.run(model, categoriez=["x"])
'''


def test_every_public_name_resolves() -> None:
    import fcbench.pipeline  # importing the module must not shadow the function

    for name in fcbench.__all__:
        assert getattr(fcbench, name) is not None, name
    assert callable(fcbench.run) and fcbench.run is fcbench.pipeline.run
    assert fcbench.Evaluation.__name__ == "Evaluation"


def test_a_user_script_type_checks(tmp_path: Path) -> None:
    script = tmp_path / "user.py"
    script.write_text(USER_SCRIPT)
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(script)],
        capture_output=True, text=True, env={"MYPYPATH": str(SRC), "PATH": ""}, timeout=600,
    )
    revealed = [line.split("Revealed type is ")[1] for line in result.stdout.splitlines()
                if "Revealed type is" in line]
    assert revealed == ['"float"', '"float"', '"float"',
                        '"list[fcbench.core.model.TestCase]"', '"int"', '"str"'], result.stdout
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1 and 'Unexpected keyword argument "categoriez"' in errors[0]
