"""Lints run by ``python -m torchclaims check``: hollow specs and labels that contradict their entry.

Spec lint (``spec_findings``), read from the sources of ``specs/test_*.py`` with ``ast``, never
by importing them.  Each finding is one line ``file:line: kind: message``.  The kinds:

- ``no-check``: a test function that checks nothing: no ``assert``, no ``pytest.raises`` /
  ``warns`` / ``deprecated_call`` / ``fail``, no call of an ``assert*`` function
  (``torch.testing.assert_close``...), of ``gradcheck``, or of a helper of the same file that
  itself checks; an as-written spec whose claim marker declares ``raises=`` counts as checking
  (its failure is the exception).
- ``const-compare``: an assertion whose every side comes from constants typed in the spec:
  literals, module-level names bound to literals, parametrize values, and what arithmetic,
  ``round``/``len``/``min``... or ``torch.tensor`` make of them (``assert TABLE[a] == TABLE[b]``,
  ``assert_close(torch.tensor(MINE), torch.tensor(THEIRS))``).  Such a check cannot fail on any torch.
- ``xfail-in-spec``: ``pytest.xfail(...)`` called inside a spec body: it turns a spec that cannot
  run into an expected failure, which the scoreboard scores as a reproduced claim.  A spec that
  cannot run here skips with its reason (``pytest.skip``, a ``gpu`` marker).
- ``skip-without-reason``: ``pytest.skip()`` with no reason.
- ``callable-of-a-call``: ``assert callable(f(...))``, the result of a constructor or a wrapper
  (``torch.compile(model)``, ``nn.Linear(2, 2)``, ``torch.jit.script(fn)``): the call either
  raises, and the assert is never reached, or returns an object that is callable by
  construction.  Call the result and check what it returns.  ``callable(getattr(obj, name,
  None))`` is a lookup that can give ``None``, and is not found.
- ``self-compare``: an assertion whose two sides are the same call-free expression once each
  local alias (a name bound once to another name) is replaced by what it names (``x.shape ==
  x.shape``; ``y = x; assert y is x``), or one side is a conditional ``a if c else
  b`` and the other reads back what a constructor built from that same conditional (``device =
  torch.device("cuda" if c else "cpu"); assert device.type == ("cuda" if c else "cpu")``): the
  expected value restates the input.  Two calls of one expression (``model(x) == model(x)``)
  check determinism and are not found, nor is ``x != x`` (a NaN test).
- ``as-written-name``: one naming style: an as-written spec is called ``test_as_written_<claim
  words>``, and a truth spec's name never says ``as_written``.
- ``broad-raises-as-written``: an as-written spec (``as_written=True``) that expects
  ``pytest.raises(Exception)`` or ``BaseException`` (or declares ``raises=Exception`` on its
  marker): it passes "as the material says" when the code breaks for any reason at all (a
  typo, an unrelated error).  Name the exception the material's statement implies.

Label lint (``label_findings``), over the catalog, the spec links and ``benchmarks/``:

- ``measured-not-checkable``: a not-checkable claim that a benchmark measures (its ``measure``
  field, or a ``claim=``/``other_claims=`` entry or a claim marker in ``benchmarks/*.py``).  A
  figure that is measured can be compared; the claim gets the verdict the measurement and its
  mechanism spec support.
- ``not-checkable-without-reason``: the rule for a not-checkable claim's truth is that it starts
  by saying why no check exists: the English truth begins with ``Not checkable`` (then ``:``,
  ``,`` or `` here``) and the Chinese truth with ``无法检验``.
- ``not-checkable-with-spec``: a not-checkable claim that a spec links to: a spec that checks it
  makes it checkable, so the verdict follows from what the spec shows.
- ``gpu-only-runs-on-cpu``: a gpu-only claim with a truth spec that is not marked ``gpu`` (or
  skipped when CUDA is absent): the spec settles it on CPU, so the claim is not gpu-only.
- ``as-written-on-a-right-claim``: an as-written spec (the material's statement, expected to
  fail) linked to a claim the catalog calls right everywhere (confirmed, with no ``versions``
  range): the spec contradicts the label; one of the two is wrong (a relabel from partly to
  confirmed removes the as-written spec).
- ``gpu-only-spec-without-cuda``: a gpu-guarded truth spec of a gpu-only claim that touches no
  CUDA at all (no ``cuda`` name, attribute or device string in it or the helpers it calls): it
  would run unchanged on a CPU, so the claim is checkable here and the guard only hides it.
- ``gpu-only-without-reason``: a gpu-only truth says what needs CUDA: the English truth has a
  phrase like ``needs CUDA`` / ``needs a GPU`` / ``only where CUDA exists`` / ``CUDA only``, the
  Chinese truth names CUDA or GPU (``CUDA``, ``GPU``, ``显卡``).
- ``figure-claim-linked-to-spec``: a figure claim (``links.figure_claims``: gpu-only and measured
  by a benchmark) that a spec links to: a spec measures no figure, so only the benchmark report may
  give its verdict; link the spec to the claim it checks (the mechanism, the API).

Sibling lint (``sibling_findings``), over the catalog alone:

- ``siblings-disagree``: two claims share a subject (an API their ``says`` names, see
  ``subjects``) and one has a ``versions`` range the other does not share (it flips at a release
  where its sibling stays put), and neither entry says why in ``differs_from``.  Align the two
  (one is mislabelled) or write the reason: ``differs_from = {"topic.other" = "why"}``.
- ``stale-sibling-note``: a ``differs_from`` note about a pair that no longer needs one (they
  share no subject, or neither has a range, or both have the same one).
"""
from __future__ import annotations

import ast
import dataclasses
import pathlib
import re

from . import catalog, clauses, links
from .links import figure_claims
from .spec_ast import (
    ASSERT_FUNCS,
    PURE_CALLS,
    _callee,
    _is_pytest_call,
    _markers,
    _mutated,
    broad_raises,
    callables_of_calls,
    self_compares,
)

SPECS_DIR = catalog.ROOT / "specs"
BENCH_DIR = catalog.ROOT / "benchmarks"

CHECKING_PYTEST = {"raises", "warns", "deprecated_call", "fail"}
CHECKING_NAMES = {"gradcheck", "gradgradcheck"}
# Builtins and conversions that turn constants into constants (no behaviour under test).
PURE_METHODS = {"all", "any", "item", "tolist", "index", "count", "keys", "values", "items", "get"}

NOT_CHECKABLE_EN = re.compile(r"^Not checkable(:|,| here\b)")
NOT_CHECKABLE_ZH = "无法检验"


@dataclasses.dataclass(frozen=True)
class Finding:
    path: str
    line: int
    kind: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.kind}: {self.message}"


# ---------------------------------------------------------------- spec lint







def _raises_marker(func: ast.FunctionDef, module_marks: list[ast.expr]) -> bool:
    return any(links.marker_argument(call, "raises") is not None for call in _markers(func, module_marks))


class _FileLint:
    def __init__(self, tree: ast.Module, name: str):
        self.tree = tree
        self.name = name
        self.helpers = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
            for n in cls.body:
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.helpers.setdefault(n.name, n)
        self.constants = {t.id for n in tree.body if isinstance(n, ast.Assign) and _literal(n.value)
                          for t in n.targets if isinstance(t, ast.Name)}
        self.constants |= {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign) and n.value is not None
                           and isinstance(n.target, ast.Name) and _literal(n.value)}
        self.module_marks = links.module_marks(tree)
        self._checks_memo: dict[str, bool] = {}

    # -- does a function check anything?
    def checks(self, func: ast.AST, seen: frozenset = frozenset()) -> bool:
        for node in ast.walk(func):
            if isinstance(node, ast.Assert):
                return True
            if isinstance(node, ast.Call):
                owner, attr = _callee(node)
                if owner == "pytest" and attr in CHECKING_PYTEST:
                    return True
                if attr and (ASSERT_FUNCS.match(attr) or attr in CHECKING_NAMES):
                    return True
                if attr in self.helpers and attr not in seen and owner in (None, "self", "cls"):
                    if self._helper_checks(attr, seen | {attr}):
                        return True
        return False

    def _helper_checks(self, name: str, seen: frozenset) -> bool:
        if name not in self._checks_memo:
            self._checks_memo[name] = False  # recursion guard
            self._checks_memo[name] = self.checks(self.helpers[name], seen)
        return self._checks_memo[name]

    # -- constant-derived expressions inside one test function
    def constant_names(self, func: ast.FunctionDef) -> set[str]:
        params = {a.arg for a in func.args.args}
        consts = set(self.constants) | (params & _parametrized_names(func))
        assigned: dict[str, list[ast.expr | None]] = {}
        for node in ast.walk(func):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    _bind(target, node.value, assigned)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
                assigned.setdefault(node.target.id, []).append(
                    None if isinstance(node, ast.AugAssign) else node.value)
            elif isinstance(node, (ast.For, ast.comprehension)):
                _bind(node.target, node.iter, assigned)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    if item.optional_vars is not None:
                        _bind(item.optional_vars, None, assigned)
            elif isinstance(node, (ast.FunctionDef, ast.Lambda)) and node is not func:
                for a in node.args.args:
                    assigned.setdefault(a.arg, []).append(None)
        for name in params - consts:
            assigned.setdefault(name, []).append(None)
        consts -= set(assigned)  # a module constant rebound locally is local
        for name in _mutated(func, set(assigned)):
            assigned[name].append(None)
        for values in assigned.values():
            if len(values) > 1:  # rebound: which value reaches the assert depends on the flow
                values.append(None)
        changed = True
        while changed:
            changed = False
            for name, values in assigned.items():
                if name not in consts and all(v is not None and self.is_const(v, consts) for v in values):
                    consts.add(name)
                    changed = True
        return consts

    def is_const(self, node: ast.expr, consts: set[str]) -> bool:
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Name):
            return node.id in consts
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return all(self.is_const(e, consts) for e in node.elts)
        if isinstance(node, ast.Dict):
            return all(k is None or self.is_const(k, consts) for k in node.keys) and \
                all(self.is_const(v, consts) for v in node.values)
        if isinstance(node, ast.BinOp):
            return self.is_const(node.left, consts) and self.is_const(node.right, consts)
        if isinstance(node, ast.UnaryOp):
            return self.is_const(node.operand, consts)
        if isinstance(node, ast.BoolOp):
            return all(self.is_const(v, consts) for v in node.values)
        if isinstance(node, ast.Compare):
            return self.is_const(node.left, consts) and all(self.is_const(c, consts) for c in node.comparators)
        if isinstance(node, ast.Subscript):
            return self.is_const(node.value, consts) and self.is_const(node.slice, consts)
        if isinstance(node, ast.Slice):
            return all(p is None or self.is_const(p, consts) for p in (node.lower, node.upper, node.step))
        if isinstance(node, ast.JoinedStr):
            return all(self.is_const(v.value if isinstance(v, ast.FormattedValue) else v, consts)
                       for v in node.values)
        if isinstance(node, ast.Call):
            owner, attr = _callee(node)
            args = list(node.args) + [k.value for k in node.keywords]
            if isinstance(node.func, ast.Attribute) and attr in PURE_METHODS:
                return self.is_const(node.func.value, consts) and all(self.is_const(a, consts) for a in args)
            if attr in PURE_CALLS and owner in (None, "torch", "math", "np", "numpy"):
                return bool(args) and all(self.is_const(a, consts) for a in args if not _is_dtype_kw(a))
        return False

    def const_compare(self, func: ast.FunctionDef) -> list[ast.AST]:
        consts = self.constant_names(func)
        found = []
        for node in ast.walk(func):
            if isinstance(node, ast.Assert) and self.is_const(node.test, consts) \
                    and not isinstance(node.test, ast.Constant):
                found.append(node)
            elif isinstance(node, ast.Call):
                _, attr = _callee(node)
                if attr and ASSERT_FUNCS.match(attr) and len(node.args) >= 2 and \
                        all(self.is_const(a, consts) for a in node.args[:2]):
                    found.append(node)
        return found






def _is_dtype_kw(node) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "torch"


def _literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
        return True
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


def _bind(target, value, assigned):
    if isinstance(target, ast.Name):
        assigned.setdefault(target.id, []).append(value)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            # unpacking a constant gives constants; anything else is not constant
            inner = value if value is not None else None
            _bind(elt.value if isinstance(elt, ast.Starred) else elt, inner, assigned)


def _parametrized_names(func: ast.FunctionDef) -> set[str]:
    """Arguments whose values come from a ``parametrize`` decorator with literal values."""
    names = set()
    for deco in func.decorator_list:
        if isinstance(deco, ast.Call) and _callee(deco)[1] == "parametrize" and len(deco.args) >= 2:
            first, values = deco.args[0], deco.args[1]
            if isinstance(first, ast.Constant) and isinstance(first.value, str) and _literal(values):
                names |= {n.strip() for n in first.value.split(",")}
    return names


def lint_source(source: str, name: str) -> list[Finding]:
    """The spec lint of one file's source (``name`` is how findings name the file)."""
    tree = links.parse(source, name)
    lint = _FileLint(tree, name)
    findings = []
    tests = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name.startswith("Test")):
        tests += [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for func in (t for t in tests if t.name.startswith("test")):
        if not lint.checks(func) and not _raises_marker(func, lint.module_marks):
            findings.append(Finding(name, func.lineno, "no-check",
                                    f"{func.name} asserts nothing (no assert, pytest.raises, assert_* or checking helper)"))
        for node in lint.const_compare(func):
            findings.append(Finding(name, node.lineno, "const-compare",
                                    f"{func.name} compares constants typed in the spec; it cannot fail on any torch"))
        for node in ast.walk(func):
            if isinstance(node, ast.Call) and _is_pytest_call(node, {"xfail"}):
                findings.append(Finding(name, node.lineno, "xfail-in-spec",
                                        f"{func.name} calls pytest.xfail; a spec that cannot run here must skip with a reason"))
            if isinstance(node, ast.Call) and _is_pytest_call(node, {"skip"}) and not node.args and \
                    not any(k.arg == "reason" for k in node.keywords):
                findings.append(Finding(name, node.lineno, "skip-without-reason", f"{func.name} skips without a reason"))
        for node in callables_of_calls(func):
            findings.append(Finding(name, node.lineno, "callable-of-a-call",
                                    f"{func.name} asserts callable() of what a call built; it raises or is true"))
        for node in self_compares(func):
            findings.append(Finding(name, node.lineno, "self-compare",
                                    f"{func.name} compares an expression with itself (or with the input it was "
                                    f"built from); it cannot fail"))
        markers = _markers(func, lint.module_marks)
        written = any(links.is_as_written(call) for call in markers)
        if markers and written != func.name.startswith("test_as_written_") or not written and "as_written" in func.name:
            findings.append(Finding(name, func.lineno, "as-written-name",
                                    f"{func.name}: an as-written spec is named test_as_written_<claim words>, "
                                    f"a truth spec's name does not say as_written"))
        for node in broad_raises(func, lint.module_marks):
            findings.append(Finding(name, node.lineno, "broad-raises-as-written",
                                    f"{func.name} is as-written and expects any Exception; it would pass for "
                                    f"an unrelated error"))
    return sorted(findings, key=lambda f: (f.line, f.kind))


def spec_findings(specs_dir: pathlib.Path = SPECS_DIR, root: pathlib.Path | None = None) -> list[Finding]:
    root = root or specs_dir.parent
    findings = []
    for path in sorted(pathlib.Path(specs_dir).glob("test_*.py")):
        name = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
        findings += lint_source(path.read_text(encoding="utf-8"), name)
    return findings


# ---------------------------------------------------------------- label lint

def benchmarked_claims(bench_dir: pathlib.Path = BENCH_DIR) -> dict[str, str]:
    """Claim id -> the first benchmark whose ``claim`` marker names it (links.bench_links)."""
    return {cid: names[0] for cid, names in links.bench_links(bench_dir).items()}


_NO_CUDA = re.compile(r"not\s+torch\.cuda\.is_available\(\)")


def _gpu_guarded(func: ast.FunctionDef, module: ast.Module) -> bool:
    """The spec is gpu-marked (function or module) or skips itself where CUDA is absent."""
    def marks_gpu(node):
        return any(isinstance(n, ast.Attribute) and n.attr == "gpu" for n in ast.walk(node))
    if any(marks_gpu(d) for d in func.decorator_list + links.module_marks(module)):
        return True
    for deco in func.decorator_list:
        if isinstance(deco, ast.Call) and _callee(deco)[1] == "skipif" and deco.args \
                and _NO_CUDA.search(ast.unparse(deco.args[0])):
            return True
    for node in ast.walk(func):
        if isinstance(node, ast.If) and _NO_CUDA.search(ast.unparse(node.test)) \
                and any(isinstance(c, ast.Call) and _callee(c)[1] == "skip" for c in ast.walk(node)):
            return True
    return False


def gpu_guards(specs_dir: pathlib.Path = SPECS_DIR) -> dict[str, dict[str, bool]]:
    """Claim id -> {spec name: gpu-guarded} for the truth specs of specs_dir (links.spec_sources:
    a module-level ``pytestmark`` claim links every test of its file)."""
    out: dict[str, dict[str, bool]] = {}
    for spec in links.spec_sources(pathlib.Path(specs_dir)):
        for cid, as_written in spec.links:
            if not as_written:
                out.setdefault(cid, {})[spec.name] = _gpu_guarded(spec.func, spec.module)
    return out


_CUDA_WORD = re.compile(r"\bcuda\b|pin_memory|is_pinned", re.IGNORECASE)
GPU_REASON_EN = re.compile(r"\b(?:needs?|requires?|only (?:with|where|on)|checkable only with|measured with)\b[^.;]*?"
                           r"\b(?:CUDA|GPU|A100|RTX|V100)|\b(?:CUDA|GPU)[- ]only\b|\bA CUDA\b", re.IGNORECASE)
GPU_REASON_ZH = re.compile(r"CUDA|GPU|显卡")


def _touches_cuda(func: ast.AST, helpers: dict, seen: frozenset = frozenset()) -> bool:
    """Whether a function's body (or a module-level helper it calls) names CUDA anywhere:
    ``.cuda()``, ``torch.cuda.*``, ``device="cuda"``, pinned memory...  Decorators are not read:
    a ``skipif(not torch.cuda.is_available())`` guard is no use of CUDA."""
    body = func.body if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) else [func]
    for node in (n for stmt in body for n in ast.walk(stmt)):
        if isinstance(node, ast.Attribute) and _CUDA_WORD.search(node.attr):
            return True
        if isinstance(node, ast.Name) and _CUDA_WORD.search(node.id):
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and _CUDA_WORD.search(node.value) \
                and not _in_docstring(node, func):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in helpers \
                and node.func.id not in seen:
            if _touches_cuda(helpers[node.func.id], helpers, seen | {node.func.id}):
                return True
    return False


def _in_docstring(node: ast.AST, func: ast.AST) -> bool:
    body = getattr(func, "body", [])
    return bool(body) and isinstance(body[0], ast.Expr) and body[0].value is node


def cuda_uses(specs_dir: pathlib.Path = SPECS_DIR) -> dict[str, dict[str, bool]]:
    """Claim id -> {truth spec name: touches CUDA} for the truth specs of specs_dir."""
    out: dict[str, dict[str, bool]] = {}
    for spec in links.spec_sources(pathlib.Path(specs_dir)):
        helpers = {n.name: n for n in spec.module.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        for cid, as_written in spec.links:
            if not as_written:
                out.setdefault(cid, {})[spec.name] = _touches_cuda(spec.func, helpers)
    return out


def label_findings(claims: dict[str, catalog.Claim], specs_dir: pathlib.Path = SPECS_DIR,
                   bench_dir: pathlib.Path = BENCH_DIR) -> list[Finding]:
    findings = []
    measured = benchmarked_claims(bench_dir)
    guards = gpu_guards(specs_dir)
    cuda_use = cuda_uses(specs_dir)
    linked = links.spec_links(pathlib.Path(specs_dir))
    figures = figure_claims(claims, bench_dir)
    for c in claims.values():
        where = f"claims/{c.topic}.toml"
        written = [name for name, as_written in linked.get(c.id, []) if as_written]
        if c.verdict == "confirmed" and not c.versions and written:
            findings.append(Finding(where, 0, "as-written-on-a-right-claim",
                                    f"{c.id} is confirmed but {written[0]} encodes the material as wrong"))
        if c.verdict == "not-checkable":
            bench = f"benchmarks/{measured[c.id]}" if c.id in measured else None
            if bench:
                findings.append(Finding(where, 0, "measured-not-checkable",
                                        f"{c.id} is not-checkable but measured by {bench}"))
            if c.id in linked:
                findings.append(Finding(where, 0, "not-checkable-with-spec",
                                        f"{c.id} is not-checkable but {linked[c.id][0][0]} checks it"))
            if not NOT_CHECKABLE_EN.match(c.truth) or not c.truth_zh.startswith(NOT_CHECKABLE_ZH):
                findings.append(Finding(where, 0, "not-checkable-without-reason",
                                        f"{c.id}: a not-checkable truth starts 'Not checkable: <why>' "
                                        f"(truth_zh '{NOT_CHECKABLE_ZH}：<原因>')"))
        if c.id in figures and c.id in linked:
            findings.append(Finding(where, 0, "figure-claim-linked-to-spec",
                                    f"{c.id} is a figure claim (measured by benchmarks/{measured[c.id]}) but "
                                    f"{linked[c.id][0][0]} links to it: a spec measures no figure"))
        if c.verdict == "gpu-only":
            on_cpu = [name for name, guarded in guards.get(c.id, {}).items() if not guarded]
            if on_cpu:
                findings.append(Finding(where, 0, "gpu-only-runs-on-cpu",
                                        f"{c.id} is gpu-only but its truth spec {on_cpu[0]} runs without CUDA"))
            no_cuda = [name for name, uses in cuda_use.get(c.id, {}).items()
                       if not uses and guards.get(c.id, {}).get(name)]
            if no_cuda:
                findings.append(Finding(where, 0, "gpu-only-spec-without-cuda",
                                        f"{c.id} is gpu-only but its gpu spec {no_cuda[0]} touches no CUDA: "
                                        f"it would run as is on a CPU"))
            if not GPU_REASON_EN.search(c.truth) or not GPU_REASON_ZH.search(c.truth_zh):
                findings.append(Finding(where, 0, "gpu-only-without-reason",
                                        f"{c.id}: a gpu-only truth says what needs CUDA ('needs CUDA: <why>', "
                                        f"truth_zh naming CUDA or GPU)"))
    return findings + sibling_findings(claims)


def clause_findings(claims: dict[str, catalog.Claim], specs_dir: pathlib.Path = SPECS_DIR,
                    bench_dir: pathlib.Path = BENCH_DIR) -> list[Finding]:
    """The truth-clause findings (torchclaims/clauses.py): every clause of a truth has its evidence."""
    linked = links.spec_links(pathlib.Path(specs_dir))
    benches = links.bench_links(pathlib.Path(bench_dir))
    root = pathlib.Path(specs_dir).parent
    return [Finding(f"claims/{c.topic}.toml", 0, kind, message)
            for c in claims.values()
            for kind, message in clauses.clause_problems(
                c, [name for name, as_written in linked.get(c.id, []) if not as_written] + benches.get(c.id, []), root)]


# ---------------------------------------------------------------- sibling claims

API_NAME = re.compile(r"(?<![\w.])(?:torch|nn|F|np|numpy|torchvision|transforms)(?:\.[A-Za-z_]\w*)+")
# Names too general to make two claims siblings: most claims about modules or tensors name them.
GENERIC_SUBJECTS = frozenset({"torch.nn.Module", "torch.Tensor", "torch.tensor", "torch.nn", "torch.nn.functional"})
UNVERIFIED = ("not-checkable", "pending")   # no verdict per release to compare


def subjects(claim: catalog.Claim) -> set[str]:
    """The APIs a claim's statement (``says``) names, spelt in full (``nn.Linear`` ->
    ``torch.nn.Linear``, ``F.relu`` -> ``torch.nn.functional.relu``), minus the generic ones."""
    names = set()
    for match in API_NAME.finditer(claim.says):
        name = re.sub(r"^F\.", "torch.nn.functional.", match.group(0))
        names.add(re.sub(r"^nn\.", "torch.nn.", name).rstrip("."))
    return names - GENERIC_SUBJECTS


def _needs_note(a: catalog.Claim, b: catalog.Claim, subj: dict) -> set[str]:
    """The subjects a and b share when their verdicts change at different releases, else empty."""
    if a.verdict in UNVERIFIED or b.verdict in UNVERIFIED or a.versions == b.versions:
        return set()
    return subj[a.id] & subj[b.id]


def sibling_findings(claims: dict[str, catalog.Claim]) -> list[Finding]:
    """``siblings-disagree`` and ``stale-sibling-note`` over the catalog (see the module docstring)."""
    subj = {cid: subjects(c) for cid, c in claims.items()}
    findings, seen = [], set()
    for a in (c for c in claims.values() if c.versions):
        for b in claims.values():
            pair = frozenset((a.id, b.id))
            if b.id == a.id or pair in seen:
                continue
            shared = _needs_note(a, b, subj)
            if shared and a.differs_reason(b.id) is None and b.differs_reason(a.id) is None:
                seen.add(pair)
                other = f"changes at {b.versions!r}" if b.versions else "has no range"
                findings.append(Finding(f"claims/{a.topic}.toml", 0, "siblings-disagree",
                                        f"{a.id} holds only on {a.versions!r} while its sibling {b.id} {other} "
                                        f"(both name {', '.join(sorted(shared))}): align them or say why in "
                                        f"differs_from"))
    for c in claims.values():
        for other, _ in c.differs_from:
            if other in claims and not (_needs_note(c, claims[other], subj) and (c.versions or claims[other].versions)):
                findings.append(Finding(f"claims/{c.topic}.toml", 0, "stale-sibling-note",
                                        f"{c.id}: its differs_from note on {other} is not needed (no shared "
                                        f"subject, or the same range): remove it"))
    return findings


def _with_lines(findings: list[Finding], claims_dir: pathlib.Path) -> list[Finding]:
    """Fill in the line of each claim finding (``id = "..."`` in its TOML file)."""
    out = []
    cache: dict[str, list[str]] = {}
    for f in findings:
        if f.line == 0 and f.path.startswith("claims/"):
            path = pathlib.Path(claims_dir) / pathlib.Path(f.path).name
            lines = cache.setdefault(f.path, path.read_text(encoding="utf-8").splitlines() if path.exists() else [])
            cid = f.message.split()[0].rstrip(":")
            line = next((i + 1 for i, text in enumerate(lines) if text.strip() == f'id = "{cid}"'), 0)
            f = dataclasses.replace(f, line=line)
        out.append(f)
    return out


def all_findings(claims: dict[str, catalog.Claim], root: pathlib.Path = catalog.ROOT,
                 claims_dir: pathlib.Path | None = None) -> list[Finding]:
    """Every spec and label finding of the project under ``root``."""
    specs, bench = pathlib.Path(root) / "specs", pathlib.Path(root) / "benchmarks"
    found = spec_findings(specs, root) + label_findings(claims, specs, bench) + clause_findings(claims, specs, bench)
    found = _with_lines(found, claims_dir or catalog.claims_dir())
    return sorted(found, key=lambda f: (f.path, f.line, f.kind))
