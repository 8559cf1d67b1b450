"""`fcbench models`: the providers `--model provider/model` reaches, each with its backend,
its base URL (or the override in effect), the variable its key is read from and whether it is
set (never its value), so that a user sees what a run needs before starting one."""

from __future__ import annotations

import os

import click


@click.command()
def models() -> None:
    """The providers `--model provider/model` reaches, and the variable each key is read from."""
    from fcbench.models.providers import PROVIDERS, base_url_variable
    from fcbench.models.urls import shown

    rows = [("provider", "backend", "base URL", "key variable", "function calling")]
    for provider in PROVIDERS.values():
        variable = base_url_variable(provider.name)
        override = os.environ.get(variable)
        url = (f"{shown(override)} (${variable})" if override
               else provider.base_url or _default_endpoint(provider.backend))
        key = provider.key_variable
        state = (f"{key} ({'set' if os.environ.get(key) else 'unset'})" if key
                 else "LiteLLM reads the provider's own")
        rows.append((f"{provider.name}/", provider.backend, url, state,
                     "yes" if provider.fc else "no (--mode prompt)"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        click.echo("  ".join([*cells, row[-1]]))
    click.echo("\nNotes:")
    for provider in PROVIDERS.values():
        if provider.quirks:
            click.echo(f"  {provider.name}: {provider.quirks}")
    click.echo("\nExample: fcbench run --model mistral/mistral-large-latest (no --base-url). "
               "FCBENCH_<PROVIDER>_BASE_URL points a provider elsewhere; with --base-url (or "
               "$OPENAI_BASE_URL, for the default backend) the name is sent whole to that "
               "endpoint.")


def _default_endpoint(backend: str) -> str:
    """Where a provider without a base URL sends requests."""
    return "LiteLLM's, per provider" if backend == "litellm" else "the SDK's default"
