"""The command line: one module per command group (`run`: generate and run; `data`;
`report`: report, compare, leaderboard, failures; `cache`), their shared flags in `flags`, and
the `fcbench` group itself in `app`, which loads each command's module only when it is called
so that `fcbench --help` stays fast."""

from fcbench.cli.app import main

__all__ = ["main"]
