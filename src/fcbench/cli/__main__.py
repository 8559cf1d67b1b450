"""`python -m fcbench.cli`: the `fcbench` command."""

from fcbench.cli.app import main

main()
