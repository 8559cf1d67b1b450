"""A stand-in `vllm` command for the serve tests: put first on PATH, it records the arguments
fcbench started it with and serves like the real engine (tests/fake_openai.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

FAKE = Path(__file__).resolve().parents[1] / "fake_openai.py"


def stand_in_vllm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Install the stand-in; returns the file its argument list is written to."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    argv_file = tmp_path / "argv.json"
    script = bin_dir / "vllm"
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, runpy, sys\n"
        f"json.dump(sys.argv[1:], open({str(argv_file)!r}, 'w'))\n"
        "args = sys.argv[1:]\n"
        "port = args[args.index('--port') + 1]\n"
        "name = args[args.index('--served-model-name') + 1]\n"
        f"sys.argv = [{str(FAKE)!r}, '--port', port, '--model', name]\n"
        f"runpy.run_path({str(FAKE)!r}, run_name='__main__')\n"
    )
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return argv_file
