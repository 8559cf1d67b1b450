"""The command a stopped run prints to resume it: the same command, never one that discards
what was kept, and no secret in it."""

from __future__ import annotations

import shlex

from fcbench.cli.run import resume_command


def test_the_resume_command_is_the_same_command_without_overwrite() -> None:
    argv = ["/venv/bin/fcbench", "run", "--model", "m", "--base-url",
            "http://user:hunter2@10.0.0.5:8000/v1", "--overwrite", "--categories",
            "all,-web_search", "--extra-body", '{"top_k": 1}', "--down-after", "60"]
    line = resume_command(argv)
    assert "hunter2" not in line
    words = shlex.split(line)
    assert words[:4] == ["fcbench", "run", "--model", "m"]
    assert "--overwrite" not in words
    assert words[-6:] == ["--categories", "all,-web_search", "--extra-body", '{"top_k": 1}',
                          "--down-after", "60"]
