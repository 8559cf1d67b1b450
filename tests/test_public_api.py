"""The public surface: `fcbench.__all__` names real, typed objects.

A user's script is type-checked with `mypy --strict`: the results of `fcbench.run(...)` are
known types all the way down (the lazy imports must not make them `Any`), and a misspelt
option is an error. Every fcbench module is followed and checked; the heavy third-party
packages no public type comes from (the optional extras' torch, huggingface_hub, ... and
dependencies of dependencies such as cryptography) are not followed, so they are `Any` here as
they are to a user without the extra: analysing them took 4/5 of the check's time (torch alone
is ~1,400 modules).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"

NOT_FOLLOWED = ("torch", "huggingface_hub", "tokenizers", "safetensors", "ddgs", "bs4",
                "html2text", "datamodel_code_generator", "cryptography", "chardet",
                "charset_normalizer", "markdown_it", "mdurl")
"""Packages mypy does not analyse for the user script: none of them types the public API."""

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


def _mypy_config(folder: Path) -> Path:
    """The project's mypy settings (whatever the working directory) and the packages not
    followed."""
    modules = ", ".join(f'"{name}", "{name}.*"' for name in NOT_FOLLOWED)
    config = folder / "pyproject.toml"
    config.write_text((ROOT / "pyproject.toml").read_text(encoding="utf-8")
                      + f'\n[[tool.mypy.overrides]]\nmodule = [{modules}]\n'
                      + 'follow_imports = "skip"\n', encoding="utf-8")
    return config


def test_a_user_script_type_checks(tmp_path: Path) -> None:
    script = tmp_path / "user.py"
    script.write_text(USER_SCRIPT)
    config = _mypy_config(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--config-file",
         str(config), str(script)],
        capture_output=True, text=True, env={"MYPYPATH": str(SRC), "PATH": ""}, timeout=600,
    )
    revealed = [line.split("Revealed type is ")[1] for line in result.stdout.splitlines()
                if "Revealed type is" in line]
    assert revealed == ['"float"', '"float"', '"float"',
                        '"list[fcbench.core.model.TestCase]"', '"int"', '"str"'], result.stdout
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1 and 'Unexpected keyword argument "categoriez"' in errors[0]
