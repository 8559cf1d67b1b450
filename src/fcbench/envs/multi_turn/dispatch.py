"""Run call strings (`"cd(folder='docs')"`) on environment instances, without `eval`.

The official evaluator rewrites every `name(` in the string to `<instance>.name(` (for the
names of the involved classes' public methods; when two classes share a name the later
class wins), refuses a few dangerous names, then `eval`s the string. fcbench parses the
rewritten string with `ast` instead and interprets only what call strings need: literals,
containers, unary signs and calls of the mapped methods (nested calls included, since the
upstream `eval` runs them too). Everything else is refused with an error string and no side
effect; an unknown name gives the message Python's `NameError` would.

The rewrite is kept (rather than resolving names on the parsed tree) because upstream
applies it to the raw text, string literals included: an argument like `'see ls() output'`
reaches the method as `'see <instance>.ls() output'`. Reproducing that needs the official
instance names, which `instance_label` builds.

Results become strings the official way: a str as is, a dict as JSON (or `str` if that
fails), anything else `str(value)`; an exception becomes `"Error during execution: <msg>"`.
"""

from __future__ import annotations

import ast
import functools
import inspect
import json
import operator
import re
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["BLOCKED_NAMES", "Dispatcher", "ExecutionRefused", "instance_label"]

BLOCKED_NAMES = frozenset({"kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"})
"""Names upstream refuses to evaluate (checked on the text before the first `(`)."""

ERROR_PREFIX = "Error during execution: "

CACHED_CALL_LENGTH = 512
"""Longer call strings take the rewriting way, uncached: the parse cache holds 65,536 calls,
which must not become 65,536 copies of a megabyte literal from a hostile result file."""

_CALLED_NAME = re.compile(r"\b([a-zA-Z_]\w*)\s*(?=\()")
_LABEL_UNSAFE = re.compile(r"[-./:]")
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: operator.not_,
    ast.Invert: operator.invert,
}


class ExecutionRefused(Exception):
    """The string asks for something outside the involved classes' public methods."""


def instance_label(namespace: str, test_id: str, class_name: str) -> str:
    """The official global name of an instance (`<model>_<id>_<class>_instance`, sanitised).

    `namespace` is the official model name plus its suffix: `_eval` for the model's
    instances, `_ground_truth_eval` for the ground truth's.
    """
    return _LABEL_UNSAFE.sub("_", f"{namespace}_{test_id}_{class_name}_instance")


class Dispatcher:
    """Executes call strings on one set of instances (state persists across calls)."""

    def __init__(self, instances: Mapping[str, object], labels: Mapping[str, str]) -> None:
        """`instances` and `labels` are keyed by class name, in involved_classes order."""
        self._objects: list[Any] = list(instances.values())
        self._labels = [labels[class_name] for class_name in instances]
        self._by_label = {label: index for index, label in enumerate(self._labels)}
        self._owner = _owners(tuple(type(instance) for instance in self._objects))
        # A label that is no identifier (a model name starting with a digit, say) makes
        # every rewritten call a syntax error upstream: only the rewriting way shows that.
        self._shortcut = all(label.isidentifier() for label in self._labels)

    def execute(self, calls: list[str]) -> list[str]:
        """One result string per call string, in order."""
        return [self.execute_one(call) for call in calls]

    def execute_one(self, call: str) -> str:
        """Run one call string; never raises (errors are results, as upstream)."""
        try:
            shortcut = (self._shortcut and len(call) <= CACHED_CALL_LENGTH
                        and call.count("(") == 1 and call.isascii())
            simple = _simple_call(call) if shortcut else None
            if simple is not None:
                return render_result(self._run_simple(simple, call))
            return render_result(self._run_rewritten(call))
        except Exception as exc:
            return f"{ERROR_PREFIX}{exc}"

    def _run_rewritten(self, call: str) -> Any:
        """Upstream's way: rewrite the text, check the name, then evaluate the whole string."""
        source = _CALLED_NAME.sub(self._qualify, call)
        _refuse_blocked(source)
        tree = ast.parse(source.lstrip(" \t"), filename="<string>", mode="eval")
        if source.count("(") > 1:  # nested calls: all must be valid before any runs
            _refuse_repeated_keywords(tree)
        return self._evaluate(tree.body)

    def _run_simple(self, node: ast.Call, call: str) -> Any:
        """`name(literals)` with no other `(` in the text: the rewrite can only touch `name`,
        so the parse of the original text (cached) is used; same checks, same order."""
        assert isinstance(node.func, ast.Name)
        name = node.func.id
        index = self._owner.get(name)
        # Upstream's name check sees `<label>.name`, or the text before `(` (spaces dropped).
        if name in BLOCKED_NAMES and (index is not None or call.split("(")[0].rstrip() == name):
            raise ExecutionRefused(f"Function call {name} is not allowed.")
        if len(node.keywords) > 1:
            _refuse_repeated_keywords_of(node)
        if index is None:
            raise NameError(f"name '{name}' is not defined")
        method: Callable[..., Any] = getattr(self._objects[index], name)
        args, kwargs = self._arguments(node)
        return method(*args, **kwargs)

    def _qualify(self, match: re.Match[str]) -> str:
        name = match.group(1)
        index = self._owner.get(name)
        return f"{self._labels[index]}.{name}" if index is not None else name

    def _evaluate(self, node: ast.expr) -> Any:
        """The value of an argument expression (or of the whole call)."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return self._sequence(node)
        if isinstance(node, ast.Dict):
            return self._dict(node)
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            return _UNARY[type(node.op)](self._evaluate(node.operand))
        if isinstance(node, ast.Name):
            raise NameError(f"name '{node.id}' is not defined")
        raise ExecutionRefused(f"Expression {type(node).__name__} is not allowed.")

    def _sequence(self, node: ast.List | ast.Tuple | ast.Set) -> Any:
        values = []
        for element in node.elts:
            if isinstance(element, ast.Starred):
                raise ExecutionRefused("Unpacking is not allowed.")
            values.append(self._evaluate(element))
        if isinstance(node, ast.List):
            return values
        return tuple(values) if isinstance(node, ast.Tuple) else set(values)

    def _dict(self, node: ast.Dict) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                raise ExecutionRefused("Unpacking is not allowed.")
            result[self._evaluate(key)] = self._evaluate(value)
        return result

    def _call(self, node: ast.Call) -> Any:
        """Arguments are evaluated left to right first (nested calls run), then the method."""
        if len(node.keywords) > 1:
            _refuse_repeated_keywords_of(node)
        method = self._target(node.func)
        args, kwargs = self._arguments(node)
        return method(*args, **kwargs)

    def _arguments(self, node: ast.Call) -> tuple[list[Any], dict[str, Any]]:
        args = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise ExecutionRefused("Unpacking is not allowed.")
            args.append(self._evaluate(arg))
        kwargs = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                raise ExecutionRefused("Unpacking is not allowed.")
            kwargs[keyword.arg] = self._evaluate(keyword.value)
        return args, kwargs

    def _target(self, func: ast.expr) -> Callable[..., Any]:
        """Only `<instance label>.<public method>`; a bare or dotted unknown name is a
        NameError on its first part, as evaluating it upstream would be."""
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            index = self._by_label.get(func.value.id)
            if index is not None:
                instance = self._objects[index]
                if func.attr in public_method_names(type(instance)):
                    method: Callable[..., Any] = getattr(instance, func.attr)
                    return method
                raise ExecutionRefused(f"Function call {func.attr} is not allowed.")
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name):
            raise NameError(f"name '{root.id}' is not defined")
        if isinstance(func, ast.Attribute):
            raise ExecutionRefused(f"Function call {func.attr} is not allowed.")
        raise ExecutionRefused(f"Expression {type(func).__name__} is not callable here.")


_METHOD_NAMES: dict[type, frozenset[str]] = {}


def public_method_names(cls: type) -> frozenset[str]:
    """The names upstream maps: members that `inspect.ismethod` accepts on an instance (plain
    functions and classmethods, not staticmethods) and that do not start with `_`.

    Computed once per class (upstream redoes it for every step from the instance); the
    environment classes define their methods on the class, so every instance has the same.
    """
    known = _METHOD_NAMES.get(cls)
    if known is not None:
        return known
    names = set()
    for name in dir(cls):
        if name.startswith("_"):
            continue
        raw = inspect.getattr_static(cls, name)
        if inspect.isfunction(raw) or isinstance(raw, classmethod):
            names.add(name)
    known = _METHOD_NAMES[cls] = frozenset(names)
    return known


@functools.cache
def _owners(classes: tuple[type, ...]) -> dict[str, int]:
    """Method name -> index of the class that owns it (the later class wins a shared name)."""
    owner: dict[str, int] = {}
    for index, cls in enumerate(classes):
        for name in public_method_names(cls):
            owner[name] = index
    return owner


@functools.lru_cache(maxsize=1 << 16)
def _simple_call(call: str) -> ast.Call | None:
    """The parsed call when the text is `name(...)`; None sends it the rewriting way (which
    also reports syntax errors exactly as upstream's parse of the rewritten text would)."""
    try:
        body = ast.parse(call.lstrip(" \t"), filename="<string>", mode="eval").body
    except (SyntaxError, ValueError):
        return None
    if isinstance(body, ast.Call) and isinstance(body.func, ast.Name):
        return body
    return None


def _refuse_blocked(source: str) -> None:
    """Upstream's name check: the text before the first `(`, then after the first `.`."""
    head = source.split("(")[0] if "(" in source else source
    if "." in head:
        head = head.split(".")[1]
    if head in BLOCKED_NAMES:
        raise ExecutionRefused(f"Function call {head} is not allowed.")


def _refuse_repeated_keywords(tree: ast.Expression) -> None:
    """Python rejects `f(a=1, a=2)` when compiling, so upstream runs none of the string."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and len(node.keywords) > 1:
            _refuse_repeated_keywords_of(node)


def _refuse_repeated_keywords_of(node: ast.Call) -> None:
    seen: set[str] = set()
    for keyword in node.keywords:
        if keyword.arg in seen:
            raise SyntaxError(f"keyword argument repeated: {keyword.arg} (<string>, line 1)")
        if keyword.arg is not None:
            seen.add(keyword.arg)


def render_result(value: Any) -> str:
    """str kept; a dict as `json.dumps` (falling back to `str`); anything else `str`."""
    if type(value) is str:
        return value
    if type(value) is dict:
        try:
            return _JSON.encode(value)
        except Exception:
            return str(value)
    return str(value)


_JSON = json.JSONEncoder()
"""`json.dumps` with its default options is this encoder's `encode` (minus a call layer)."""
