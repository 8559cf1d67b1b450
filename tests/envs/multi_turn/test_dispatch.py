"""Dispatcher: call strings run on instances like upstream's rewrite + eval, minus the eval.

The expected strings were checked against the official `execute_multi_turn_func_call`
(except where fcbench refuses what upstream's bare `eval` would run: builtins)."""

from __future__ import annotations

from typing import Any

import pytest

from fcbench.envs.multi_turn.dispatch import Dispatcher, instance_label, render_result


class Notes:
    """A stub environment that records every call, to prove refusals have no side effect."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.visible = "state"
        self._secret = "hidden"

    def write(self, text: str, times: int = 1) -> dict[str, Any]:
        self.log.append(text * times)
        return {"written": text * times}

    def read(self) -> str:
        self.log.append("read")
        return "\n".join(self.log)

    def count(self) -> int:
        return len(self.log)

    def shared(self) -> str:
        return "notes"

    def crash(self) -> None:
        raise ValueError("boom")

    def _private(self) -> str:
        self.log.append("private")
        return "leaked"

    def __repr__(self) -> str:
        return "Notes()"


class Other:
    def shared(self) -> str:
        return "other"

    def odd(self) -> Any:
        return {"k": {1, 2}}

    def nothing(self) -> None:
        return None


def dispatcher(*instances: object) -> Dispatcher:
    named = {type(i).__name__: i for i in instances}
    labels = {name: instance_label("m_eval", "multi_turn_base_7", name) for name in named}
    return Dispatcher(named, labels)


@pytest.fixture
def notes() -> Notes:
    return Notes()


def test_keyword_and_positional_arguments(notes: Notes) -> None:
    run = dispatcher(notes)
    assert run.execute(["write(text='a')", "write('b', 2)", "count()"]) == [
        '{"written": "a"}',
        '{"written": "bb"}',
        "2",
    ]


def test_results_render_like_upstream() -> None:
    assert render_result("text") == "text"
    assert render_result({"a": [1, None]}) == '{"a": [1, null]}'
    assert render_result({"a": {1, 2}}) == "{'a': {1, 2}}"  # not JSON: str() instead
    assert render_result(None) == "None"
    assert render_result(3.5) == "3.5"
    assert render_result([1]) == "[1]"


def test_exceptions_become_error_strings(notes: Notes) -> None:
    run = dispatcher(notes)
    assert run.execute_one("crash()") == "Error during execution: boom"
    assert run.execute_one("write(txt='a')") == (
        "Error during execution: Notes.write() got an unexpected keyword argument 'txt'"
    )
    assert run.execute_one("write()") == (
        "Error during execution: Notes.write() missing 1 required positional argument: 'text'"
    )


def test_syntax_errors_are_results(notes: Notes) -> None:
    run = dispatcher(notes)
    assert run.execute_one("write(") == (
        "Error during execution: '(' was never closed (<string>, line 1)"
    )
    assert run.execute_one("write(text='a', text='b')") == (
        "Error during execution: keyword argument repeated: text (<string>, line 1)"
    )
    assert notes.log == []


def test_leading_spaces_are_ignored_like_eval(notes: Notes) -> None:
    assert dispatcher(notes).execute_one("  \tcount()") == "0"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("missing(x=1)", "name 'missing' is not defined"),
        ("open('/etc/passwd')", "name 'open' is not defined"),
        ("eval('1')", "name 'eval' is not defined"),
        ("exec('x = 1')", "name 'exec' is not defined"),
        ("__import__('os').system('true')", "Function call system is not allowed."),
        ("_private()", "name '_private' is not defined"),
        ("__class__()", "name '__class__' is not defined"),
        ("read.__globals__['x']()", "Expression Subscript is not callable here."),
        ("write.__self__._private()", "name 'write' is not defined"),
        ("count.__class__()", "name 'count' is not defined"),
        ("os.system('true')", "name 'os' is not defined"),
        ("''.join(['a'])", "Function call join is not allowed."),
        (
            "().__class__.__bases__[0].__subclasses__()",
            "Function call __subclasses__ is not allowed.",
        ),
        ("kill(1)", "Function call kill is not allowed."),
        ("exit()", "Function call exit is not allowed."),
        ("os.remove('x')", "Function call remove is not allowed."),
        ("subprocess.run('ls')", "Function call run is not allowed."),
        ("write(text=read)", "name 'read' is not defined"),
        ("write(text=[x for x in 'ab'])", "Expression ListComp is not allowed."),
        ("write(text='a' * 10**9)", "Expression BinOp is not allowed."),
        ("write(text=(lambda: 'a')())", "Expression Lambda is not callable here."),
        ("write(*['a'])", "Unpacking is not allowed."),
        ("write(**{'text': 'a'})", "Unpacking is not allowed."),
    ],
)
def test_refused_calls_have_no_side_effect(notes: Notes, call: str, message: str) -> None:
    run = dispatcher(notes)
    assert run.execute_one(call) == f"Error during execution: {message}"
    assert notes.log == []
    assert notes._secret == "hidden"


def test_instance_attributes_and_private_methods_are_not_reachable(notes: Notes) -> None:
    run = dispatcher(notes)
    label = instance_label("m_eval", "multi_turn_base_7", "Notes")
    for call in (f"{label}._private()", f"{label}.visible()", f"{label}.__init__()"):
        assert run.execute_one(call).startswith("Error during execution: Function call")
    assert run.execute_one(f"{label}()").startswith("Error during execution:")
    assert notes.log == []


def test_nested_calls_run_first_like_eval(notes: Notes) -> None:
    """Upstream rewrites every `name(` in the string, so a nested call runs too."""
    run = dispatcher(notes)
    assert run.execute_one("write(text=read())") == '{"written": "read"}'
    assert notes.log == ["read", "read"]


def test_names_inside_string_literals_are_rewritten(notes: Notes) -> None:
    """[quirk] The rewrite is textual: `count(` inside a string gets the instance prefix,
    and the space of `name (` is swallowed even for unknown names."""
    run = dispatcher(notes)
    label = instance_label("m_eval", "multi_turn_base_7", "Notes")
    run.execute_one("write(text='see count() and hello (x)')")
    assert notes.log == [f"see {label}.count() and hello(x)"]


def test_instance_label_is_the_official_global_name() -> None:
    assert instance_label("org/model-1.5_eval", "multi_turn_base_3", "MathAPI") == (
        "org_model_1_5_eval_multi_turn_base_3_MathAPI_instance"
    )


def test_later_class_wins_a_shared_method_name(notes: Notes) -> None:
    assert dispatcher(notes, Other()).execute_one("shared()") == "other"
    assert dispatcher(Other(), notes).execute_one("shared()") == "notes"


def test_literal_arguments(notes: Notes) -> None:
    other = Other()
    run = dispatcher(notes, other)
    assert run.execute_one("odd()") == "{'k': {1, 2}}"
    assert run.execute_one("nothing()") == "None"
    assert run.execute_one("write(text=-1)") == '{"written": -1}'
    assert run.execute_one("write(text=(1, [2], {'a': None}, {3}))") == (
        "{'written': (1, [2], {'a': None}, {3})}"
    )
    assert run.execute_one("write(text={[1]: 2})") == (
        "Error during execution: unhashable type: 'list'"
    )
    assert run.execute_one("write(text=inf)") == "Error during execution: name 'inf' is not defined"


def test_math_api_end_to_end() -> None:
    from fcbench.envs.multi_turn import load_class

    run = dispatcher(load_class("MathAPI")())
    assert run.execute(["add(a=1, b=2)", "add(1, 2)", "divide(a=1, b=0)"]) == [
        '{"result": 3}',
        '{"result": 3}',
        '{"error": "Cannot divide by zero"}',
    ]


def test_instance_names_that_are_not_identifiers_break_every_call(notes: Notes) -> None:
    """A model named `4o-mini` gives instance names starting with a digit: upstream's
    rewritten strings then never parse."""
    label = instance_label("4o-mini_eval", "multi_turn_base_7", "Notes")
    run = Dispatcher({"Notes": notes}, {"Notes": label})
    assert run.execute_one("count()").startswith("Error during execution: invalid decimal literal")
    assert run.execute_one("missing()") == "Error during execution: name 'missing' is not defined"
    assert notes.log == []


def test_long_call_strings_are_not_kept_in_the_parse_cache() -> None:
    from fcbench.envs.multi_turn.dispatch import CACHED_CALL_LENGTH, _simple_call
    from fcbench.envs.multi_turn.math_api import MathAPI

    run = Dispatcher({"MathAPI": MathAPI()}, {"MathAPI": "m"})
    numbers = list(range(CACHED_CALL_LENGTH))
    _simple_call.cache_clear()
    long_result = run.execute_one(f"sum_values(numbers={numbers})")
    assert _simple_call.cache_info().currsize == 0
    assert long_result == run.execute_one("sum_values(numbers=[1, 2])").replace(
        "3", str(sum(numbers)))
    assert _simple_call.cache_info().currsize == 1  # short ones still are
