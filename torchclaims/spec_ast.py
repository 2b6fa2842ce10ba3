"""Reading a spec's source: its calls, markers and mutations, and the assertions that cannot fail.

The rules ``check`` applies to a spec's body (torchclaims/lint.py) that look at single
assertions: an ``assert callable(...)`` of something just constructed, an assertion comparing an
expression with itself (after plain aliases, or a value read back from what one conditional
built), and a broad ``pytest.raises(Exception)`` in an as-written spec.
"""
from __future__ import annotations

import ast
import copy
import re

from . import links

PURE_CALLS = {"round", "abs", "int", "float", "len", "min", "max", "sum", "tuple", "list", "set",
              "dict", "sorted", "str", "bool", "divmod", "pow", "tensor", "as_tensor"}
ASSERT_FUNCS = re.compile(r"^assert")


def _callee(call: ast.Call) -> tuple[str | None, str | None]:
    """(object name, attribute) of ``obj.attr(...)``, or (None, name) of ``name(...)``."""
    func = call.func
    if isinstance(func, ast.Name):
        return None, func.id
    if isinstance(func, ast.Attribute):
        base = func.value
        return (base.id if isinstance(base, ast.Name) else getattr(base, "attr", None)), func.attr
    return None, None


def _is_pytest_call(call: ast.Call, names: set[str]) -> bool:
    owner, attr = _callee(call)
    return owner == "pytest" and attr in names


def _markers(func: ast.FunctionDef, module_marks: list[ast.expr]) -> list[ast.Call]:
    """The claim markers that apply to ``func`` (its own and its module's), read by torchclaims.links."""
    return [call for node in list(func.decorator_list) + module_marks for call in links.marker_calls(node)]


MUTATING_METHODS = {"append", "extend", "insert", "update", "add", "pop", "popitem", "clear", "setdefault",
                    "remove", "discard", "sort", "reverse"}


def _mutated(func: ast.FunctionDef, local: set[str]) -> set[str]:
    """Local names whose value the function changes after binding it (``seen.append(x)``,
    ``held[k] = v``, ``t.add_(1)``) or hands to a call that may change it."""
    out = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
                    (f.attr in MUTATING_METHODS or f.attr.endswith("_")):
                out.add(f.value.id)
            if _callee(node)[1] not in PURE_CALLS:
                out |= {a.id for a in list(node.args) + [k.value for k in node.keywords] if isinstance(a, ast.Name)}
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            base = node.value
            while isinstance(base, (ast.Subscript, ast.Attribute)):
                base = base.value
            if isinstance(base, ast.Name):
                out.add(base.id)
    return out & local


# ---------------------------------------------------------------- assertions that restate their input

# Lookups that can give None: callable() of what they return is a real question.
LOOKUPS = {"getattr", "get", "pop", "__getattr__", "__getattribute__"}
# Callees that build a value from their argument without computing anything under test:
# classes (CamelCase), torch's value types and Python's conversions.
BUILDERS = {"device", "dtype", "Size", "str", "int", "float", "bool", "tuple", "list"}
REFLEXIVE_OPS = (ast.Eq, ast.Is, ast.LtE, ast.GtE)


def _single_bindings(func: ast.FunctionDef, unchanged: bool = True) -> dict[str, ast.expr]:
    """Local names bound exactly once, by ``name = value`` (and, if ``unchanged``, whose value
    the spec never changes afterwards)."""
    values: dict[str, list[ast.expr | None]] = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for n in ast.walk(target):
                    if isinstance(n, ast.Name):
                        values.setdefault(n.id, []).append(node.value if target is n else None)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.comprehension, ast.NamedExpr)):
            for n in ast.walk(node.target):
                if isinstance(n, ast.Name):
                    values.setdefault(n.id, []).append(None)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for n in (m for item in node.items if item.optional_vars for m in ast.walk(item.optional_vars)):
                if isinstance(n, ast.Name):
                    values.setdefault(n.id, []).append(None)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for a in node.args.args + node.args.kwonlyargs:
                values.setdefault(a.arg, []).append(None)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            values.setdefault(node.name, []).append(None)
    single = {name: vals[0] for name, vals in values.items() if len(vals) == 1 and vals[0] is not None}
    if not unchanged:
        return single
    for name in _mutated(func, set(single)):
        single.pop(name)
    # A value read from a local that changes (``version = t._version`` before ``t += 1``) is
    # no longer what the name holds at the assert: only values built from unchanging names stay.
    changed = True
    while changed:
        changed = False
        for name, value in list(single.items()):
            if any(isinstance(n, ast.Name) and n.id in values and n.id not in single for n in ast.walk(value)):
                single.pop(name)
                changed = True
    return single


def _expand(node: ast.expr, bindings: dict[str, ast.expr], depth: int = 4) -> ast.expr:
    """``node`` with each name of ``bindings`` replaced by its value (``depth`` levels deep)."""
    class Substitute(ast.NodeTransformer):
        def visit_Name(self, name):
            if isinstance(name.ctx, ast.Load) and name.id in bindings and depth > 0:
                return _expand(bindings[name.id], bindings, depth - 1)
            return name
    return Substitute().visit(copy.deepcopy(node))


def _same(a: ast.AST, b: ast.AST) -> bool:
    return ast.dump(a, include_attributes=False) == ast.dump(b, include_attributes=False)


def _calls_nothing(node: ast.AST) -> bool:
    return not any(isinstance(n, ast.Call) for n in ast.walk(node))


def _builds_from(node: ast.expr, part: ast.expr) -> bool:
    """``node`` is ``part`` itself, or reads an attribute or item of a value built from ``part``
    by a BUILDERS or CamelCase call (``torch.device(part).type``)."""
    if _same(node, part):
        return True
    if isinstance(node, (ast.Attribute, ast.Subscript)):
        return _builds_from(node.value, part)
    if isinstance(node, ast.Call):
        _, callee = _callee(node)
        if callee and (callee in BUILDERS or callee[:1].isupper()):
            return any(_builds_from(a, part) for a in list(node.args) + [k.value for k in node.keywords])
    return False


def _conjuncts(test: ast.expr) -> list[ast.expr]:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [c for v in test.values for c in _conjuncts(v)]
    return [test]


def _compared_pairs(func: ast.FunctionDef):
    """(assertion node, left, right) of each comparison an assertion makes: ``assert a == b``
    (and each link of ``a == b == c``, each side of ``and``), ``assert_close(a, b)``."""
    for node in ast.walk(func):
        if isinstance(node, ast.Assert):
            for test in _conjuncts(node.test):
                if isinstance(test, ast.Compare):
                    sides = [test.left, *test.comparators]
                    for op, left, right in zip(test.ops, sides, sides[1:]):
                        if isinstance(op, REFLEXIVE_OPS):
                            yield node, left, right
        elif isinstance(node, ast.Call):
            _, attr = _callee(node)
            if attr and ASSERT_FUNCS.match(attr) and len(node.args) >= 2:
                yield node, node.args[0], node.args[1]


def self_compares(func: ast.FunctionDef) -> list[ast.AST]:
    """The assertions of ``func`` that compare an expression with itself (``self-compare``)."""
    bindings = _single_bindings(func)
    # Only another name for the same object or constant stands in for a name: what a name read
    # from an object (``before = y._version``) can change with any call in between, and a name
    # bound to a call's result is one object of its own (``a = f(); b = f()`` differ).
    aliases = {name: value for name, value in bindings.items() if isinstance(value, (ast.Name, ast.Constant))}
    found = []
    for node, left, right in _compared_pairs(func):
        a, b = _expand(left, aliases), _expand(right, aliases)
        # Two calls of one expression are a check of determinism (``model(x) == model(x)``).
        identical = _same(a, b) and _calls_nothing(a)
        a, b = _expand(left, bindings), _expand(right, bindings)
        restated = any(isinstance(side, ast.IfExp) and not isinstance(other, ast.IfExp) and
                       any(isinstance(n, ast.IfExp) and _same(n, side) for n in ast.walk(other)) and
                       _builds_from(other, side)
                       for side, other in ((a, b), (b, a)))
        if (identical or restated) and node not in found:
            found.append(node)
    return found


def callables_of_calls(func: ast.FunctionDef) -> list[ast.Assert]:
    """``assert callable(f(...))`` (directly or through a name bound once): ``callable-of-a-call``.
    What happens to the object later does not matter: a built module stays callable."""
    bindings = _single_bindings(func, unchanged=False)
    found = []
    for node in (n for n in ast.walk(func) if isinstance(n, ast.Assert)):
        for test in _conjuncts(node.test):
            if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "callable" \
                    and len(test.args) == 1:
                arg = _expand(test.args[0], bindings, depth=1)
                if isinstance(arg, ast.Call) and _callee(arg)[1] not in LOOKUPS:
                    found.append(node)
                    break
    return found


BROAD_EXCEPTIONS = {"Exception", "BaseException"}


def _is_broad(node: ast.expr | None) -> bool:
    if isinstance(node, (ast.Tuple, ast.List)):
        return any(_is_broad(e) for e in node.elts)
    return isinstance(node, (ast.Name, ast.Attribute)) and \
        (node.id if isinstance(node, ast.Name) else node.attr) in BROAD_EXCEPTIONS


def broad_raises(func: ast.FunctionDef, module_marks: list[ast.expr]) -> list[ast.AST]:
    """In an as-written spec: ``pytest.raises(Exception)`` / ``BaseException``, or a claim
    marker declaring ``raises=Exception`` (``broad-raises-as-written``)."""
    as_written = [call for call in _markers(func, module_marks) if links.is_as_written(call)]
    if not as_written:
        return []
    found = [call for call in as_written if _is_broad(links.marker_argument(call, "raises"))]
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and _is_pytest_call(node, {"raises"}) and node.args and _is_broad(node.args[0]):
            found.append(node)
    return found
