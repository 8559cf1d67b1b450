"""Served engines at scale: the tensor, pipeline and data parallel sizes and the multi-node
setting reach vLLM and SGLang in their own flags (the command lines built: no GPU, no
engine here; the vLLM run goes through a stand-in `vllm` on PATH that records its
arguments). The engines' flag names are from their documentation (vLLM `vllm serve --help`,
SGLang `server_args.py`); neither engine is installed here to check them against."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fcbench.runner.serve import (
    Parallelism,
    ServeError,
    ServeOptions,
    follower_command,
    plan_server,
)

from .stand_in_engine import stand_in_vllm


def pairs(command: tuple[str, ...]) -> dict[str, str]:
    """Each `--flag value` of a command (a flag without a value maps to "")."""
    found: dict[str, str] = {}
    for i, word in enumerate(command):
        if word.startswith("--"):
            following = command[i + 1] if i + 1 < len(command) else ""
            found[word] = "" if following.startswith("--") else following
    return found


@pytest.fixture
def engines(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A `vllm` on PATH and an importable-looking `sglang` (only their names are looked up
    when a command is planned)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "vllm").write_text("#!/bin/sh\n")
    (bin_dir / "vllm").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: object() if name == "sglang" else real(name, *a))
    return bin_dir


def planned(engine: str, **options: Any) -> tuple[str, ...]:
    plan = plan_server("Qwen/Qwen3-8B", ServeOptions(engine=engine, **options))
    assert plan is not None
    return plan.command


def test_vllm_sizes_and_ray_for_several_nodes(engines: Path) -> None:
    command = planned("vllm", tensor_parallel=4, pipeline_parallel=2, data_parallel=3,
                      nodes=2, extra_args="--max-model-len 8192")
    found = pairs(command)
    assert found["--tensor-parallel-size"] == "4" and found["--pipeline-parallel-size"] == "2"
    assert found["--data-parallel-size"] == "3"
    assert found["--distributed-executor-backend"] == "ray"
    assert found["--tool-call-parser"] == "hermes" and command[-2:] == ("--max-model-len",
                                                                        "8192")
    one_node = pairs(planned("vllm", tensor_parallel=2, nodes=1))
    assert "--distributed-executor-backend" not in one_node and "--data-parallel-size" not in (
        one_node)
    plain = planned("vllm")
    assert not any("parallel" in word for word in plain)  # the engine's defaults untouched


def test_sglang_sizes_and_nodes(engines: Path) -> None:
    command = planned("sglang", tensor_parallel=8, data_parallel=2, pipeline_parallel=2,
                      nodes=2, dist_init_addr="10.0.0.1:5000")
    found = pairs(command)
    assert (found["--tp"], found["--dp"], found["--pp-size"]) == ("8", "2", "2")
    assert (found["--nnodes"], found["--node-rank"], found["--dist-init-addr"]) == (
        "2", "0", "10.0.0.1:5000")
    plan = plan_server("Qwen/Qwen3-8B", ServeOptions(engine="sglang", tensor_parallel=8,
                                                     nodes=3, dist_init_addr="h:1"))
    assert plan is not None
    other = follower_command(plan, 2)
    assert pairs(other)["--node-rank"] == "2" and len(other) == len(plan.command)
    assert [w for w in other if w != "2"] == [w for w in plan.command if w != "0"]


@pytest.mark.parametrize(("engine", "options", "said"), [
    ("sglang", {"nodes": 2}, "needs --serve-dist-init-addr"),
    ("sglang", {"dist_init_addr": "h:1"}, "applies to --serve-nodes 2 or more"),
    ("vllm", {"nodes": 2, "dist_init_addr": "h:1"}, "is SGLang's"),
    ("vllm", {"tensor_parallel": 2, "extra_args": "--tensor-parallel-size=4"}, "repeats"),
    ("sglang", {"data_parallel": 2, "extra_args": "--dp 4"}, "repeats --dp"),
    ("vllm", {"tensor_parallel": 0}, "at least 1"),
])
def test_sizes_that_do_not_fit(engines: Path, engine: str, options: dict[str, Any],
                               said: str) -> None:
    with pytest.raises(ServeError, match=said):
        planned(engine, **options)


def test_sizes_without_an_engine_fcbench_starts() -> None:
    with pytest.raises(ServeError, match="add --serve vllm"):
        plan_server("m", ServeOptions(tensor_parallel=2))
    with pytest.raises(ServeError, match="put the parallel sizes in it"):
        plan_server("m", ServeOptions(command="serve --port {port}", data_parallel=2))
    assert not Parallelism().given and Parallelism(nodes=1).given


def test_the_flags_reach_the_engine(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`fcbench generate --serve vllm --tensor-parallel 2 ...` through a stand-in `vllm` that
    records its arguments and serves like the real one; a size without --serve is one
    line."""
    argv_file = stand_in_vllm(tmp_path, monkeypatch)
    from fcbench.cli import main

    result = CliRunner().invoke(main, [
        "generate", "--model", "Qwen/Qwen3-8B", "--serve", "vllm", "--tensor-parallel", "2",
        "--pipeline-parallel", "2", "--data-parallel", "2", "--serve-nodes", "2",
        "--categories", "simple_python", "--limit", "2", "--result-dir", str(tmp_path / "r"),
        "--quiet"])
    assert result.exit_code == 0, result.output
    found = pairs(tuple(json.loads(argv_file.read_text())))
    assert (found["--tensor-parallel-size"], found["--pipeline-parallel-size"],
            found["--data-parallel-size"], found["--distributed-executor-backend"]) == (
        "2", "2", "2", "ray")
    alone = CliRunner().invoke(main, ["generate", "--model", "m", "--data-parallel", "2",
                                      "--result-dir", str(tmp_path / "r")])
    assert alone.exit_code == 2
    assert alone.stderr.strip().splitlines() == [
        "fcbench: error: --tensor-parallel, --pipeline-parallel, --data-parallel and "
        "--serve-nodes size a server fcbench starts: add --serve vllm or --serve sglang"]


def test_serve_log_lists_the_other_nodes_commands(tmp_path: Path) -> None:
    """A multi-node SGLang server's log starts with the command each other node runs."""
    from fcbench.runner.serve import ServePlan, Server

    command = (sys.executable, "-c", "pass", "--tp", "2", "--nnodes", "3", "--node-rank", "0",
               "--dist-init-addr", "h:1")
    server = Server(ServePlan("sglang", command, "http://127.0.0.1:1/v1"), tmp_path / "s.log")
    server.stop(grace=1)
    head = (tmp_path / "s.log").read_text().splitlines()
    assert head[1].startswith("# fcbench: node 1 runs: ") and head[1].endswith(
        "--node-rank 1 --dist-init-addr h:1")
    assert head[2].startswith("# fcbench: node 2 runs: ") and "--node-rank 2" in head[2]
    single = Server(ServePlan("vllm", (sys.executable, "-c", "pass"), "http://127.0.0.1:1/v1"),
                    tmp_path / "v.log")
    single.stop(grace=1)
    assert "runs:" not in (tmp_path / "v.log").read_text()
