"""The Slurm array script and the Kubernetes Indexed Job manifests of docs/examples: parsed,
their `fcbench` command lines read by fcbench's own argument parser (with the scheduler's
variables set as the scheduler sets them, so that `--shard auto` resolves), and the pieces
that must agree do: the shard count of the array or Job, the folder the merge reads, the
folder the shards write."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import click
import pytest
import yaml

from fcbench.cli.merge import merge
from fcbench.cli.run import _config, generate
from fcbench.dataset.shards import Shard
from fcbench.layout import run_folder_name

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def parsed(command: click.Command, args: list[str]) -> dict[str, Any]:
    """The flags as fcbench's parser reads them (a bad flag raises click's error)."""
    with command.make_context(command.name or "", list(args)) as ctx:
        return dict(ctx.params)


def checked_fcbench_line(words: list[str]) -> tuple[str, dict[str, Any]]:
    """An `fcbench SUBCOMMAND ...` line parsed; generate's also made into a configuration."""
    from fcbench.cli import main

    assert words[0] == "fcbench", words
    name, args = words[1], words[2:]
    command = main.get_command(click.Context(main), name)
    assert command is not None, name
    params = parsed(command, args)
    if command is generate:
        _config(params)  # the library's checks (ranges, base URLs) on the same values
    return name, params


def shell_lines(script: str) -> list[str]:
    """The script's logical lines (backslash continuations joined, comments dropped)."""
    joined = re.sub(r"\\\n\s*", " ", script)
    return [line.strip() for line in joined.splitlines()
            if line.strip() and not line.strip().startswith("#")]


def fcbench_commands(text: str, variables: dict[str, str]) -> list[list[str]]:
    """Every `fcbench ...` command in a shell text, in order (also inside a quoted argument,
    as `--wrap "..."` and `sh -c "..."` give them; commands split at `&&`), with the
    variables put in."""
    for name, value in variables.items():
        text = text.replace(f"${{{name}}}", value).replace(f"${name}", value)
    found: list[list[str]] = []
    for line in text.splitlines():
        command: list[str] = []
        for word in [*shlex.split(line, comments=True), "&&"]:
            if word == "&&":
                if command and command[0] == "fcbench":
                    found.append(command)
                command = []
            elif "fcbench " in word:  # a quoted command line
                found += fcbench_commands(word, {})
            else:
                command.append(word)
    return found


def test_slurm_array_script(monkeypatch: pytest.MonkeyPatch) -> None:
    script = (EXAMPLES / "slurm-shards.sh").read_text()
    subprocess.run(["bash", "-n", str(EXAMPLES / "slurm-shards.sh")], check=True)
    directives = dict(re.findall(r"^#SBATCH --([\w-]+)=(\S+)", script, re.M))
    first, last = map(int, directives["array"].split("-"))
    count = last - first + 1
    lines = shell_lines(script)
    variables = dict(re.findall(r"^(\w+)=(\S+)", "\n".join(lines), re.M))
    commands = fcbench_commands("\n".join(lines), variables)
    assert [c[1] for c in commands] == ["merge", "evaluate", "generate"]
    for task in (first, last):  # what Slurm sets in the first and the last task
        monkeypatch.setenv("SLURM_ARRAY_TASK_ID", str(task))
        monkeypatch.setenv("SLURM_ARRAY_TASK_MIN", str(first))
        monkeypatch.setenv("SLURM_ARRAY_TASK_COUNT", str(count))
        _, params = checked_fcbench_line(commands[2])
        assert params["shard"] == Shard(task - first, count)
    _, shards = checked_fcbench_line(commands[0])
    folder = run_folder_name(params["model"], params["mode"])
    assert [str(p) for p in shards["shard_folders"]] == [
        f"{params['result_dir']}/{folder}.shard-*-of-{count}"]
    assert shards["into"] == Path("results") / folder
    _, scored = checked_fcbench_line(commands[1])
    assert scored["result_dir"] == shards["into"].parent


def test_kubernetes_indexed_job_and_merge(monkeypatch: pytest.MonkeyPatch) -> None:
    (job,) = list(yaml.safe_load_all((EXAMPLES / "k8s-indexed-job.yaml").read_text()))
    (merge_job,) = list(yaml.safe_load_all((EXAMPLES / "k8s-merge-job.yaml").read_text()))
    spec = job["spec"]
    assert job["kind"] == "Job" and spec["completionMode"] == "Indexed"
    (container,) = spec["template"]["spec"]["containers"]
    env = {item["name"]: item["value"] for item in container["env"]}
    assert int(env["FCBENCH_SHARD_COUNT"]) == spec["completions"]
    for index in (0, spec["completions"] - 1):  # what Kubernetes sets in the pods
        monkeypatch.setenv("JOB_COMPLETION_INDEX", str(index))
        monkeypatch.setenv("FCBENCH_SHARD_COUNT", env["FCBENCH_SHARD_COUNT"])
        name, params = checked_fcbench_line([str(w) for w in container["command"]])
        assert name == "generate" and params["shard"] == Shard(index, spec["completions"])
    (merger,) = merge_job["spec"]["template"]["spec"]["containers"]
    assert merger["command"][:2] == ["sh", "-c"]
    commands = fcbench_commands(merger["command"][2], {})
    assert [c[1] for c in commands] == ["merge", "evaluate"]
    _, shards = checked_fcbench_line(commands[0])
    folder = run_folder_name(params["model"], params["mode"])
    assert [str(p) for p in shards["shard_folders"]] == [
        f"{params['result_dir']}/{folder}.shard-*-of-{spec['completions']}"]
    assert shards["into"] == Path("/data/results") / folder
    _, scored = checked_fcbench_line(commands[1])
    assert scored["result_dir"] == shards["into"].parent
    volumes = {m["mountPath"] for c in (container, merger) for m in c["volumeMounts"]}
    assert volumes == {"/data"} and str(params["result_dir"]).startswith("/data/")


def test_a_wrong_flag_in_an_example_would_be_caught() -> None:
    """The check reads flags as fcbench does: a misspelt one fails it."""
    with pytest.raises(click.UsageError):
        checked_fcbench_line(["fcbench", "generate", "--model", "m", "--shards", "0/2"])
    with pytest.raises(click.BadParameter):
        parsed(merge, ["a"])  # --into missing
