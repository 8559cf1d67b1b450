"""`core.categories`' checker names: the data layer's view of the checker registry, kept in
step by `check.registry.register` (the layers below checking may not import it)."""

from __future__ import annotations

from fcbench.check import registry
from fcbench.check.kinds.ast import AstKind
from fcbench.core import categories
from fcbench.core.categories import Checker


def test_every_name_the_check_registry_knows_is_a_checker_name() -> None:
    assert registry.names()
    assert [name for name in registry.names() if not categories.is_checker_name(name)] == []


def test_none_judges_nothing_and_unknown_names_are_not_checkers() -> None:
    assert not categories.is_checker_name(Checker.NONE)
    assert not categories.is_checker_name("no_such_kind")


def test_a_kind_registered_at_run_time_is_a_checker_name() -> None:
    assert not categories.is_checker_name("core_toy_kind")
    registry.register(AstKind("core_toy_kind"))
    assert categories.is_checker_name("core_toy_kind")
