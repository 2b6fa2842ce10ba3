"""Claim links: which spec checks which claim, read from the ``claim`` marker.

One reader for both ways of looking: ``claim_marks(item)`` on a collected pytest item (the
plugin, ``check``), and ``file_sources(path)`` / ``file_links`` / ``spec_links`` on spec files'
sources without importing them (the report of a file skipped whole at collection, the command
line's ``show`` and ``check --static``, the lints, the planted-fault runner, the matrix).  A
module-level ``pytestmark = pytest.mark.claim(...)`` links every test of its file.

    @pytest.mark.claim("tensors.view-shares-storage")                  # a truth spec
    @pytest.mark.claim("autograd.x", as_written=True)                  # the material's statement:
                                                                       #   fails with AssertionError
    @pytest.mark.claim("autograd.y", as_written=True, raises=RuntimeError, match="leaf")
                                                                       #   fails with this exception
"""
from __future__ import annotations

import ast
import collections
import dataclasses
import functools
import pathlib

from .catalog import ROOT, Claim

MARKER_ARGS = {"as_written", "raises", "match"}


@dataclasses.dataclass(frozen=True)
class Link:
    claim: str
    as_written: bool = False
    # What the as-written spec's failure looks like: an exception type (or tuple) and a
    # regular expression its message must match. None: a failed check (AssertionError,
    # pytest.fail, pytest.raises' "DID NOT RAISE").
    raises: type | tuple[type, ...] | None = None
    match: str | None = None


def claim_marks(item) -> list[Link]:
    """The claim links of a collected pytest item, one per ``claim`` marker."""
    import pytest
    links = []
    for mark in item.iter_markers("claim"):
        if len(mark.args) != 1 or not isinstance(mark.args[0], str):
            raise pytest.UsageError(f"{item.nodeid}: use @pytest.mark.claim('topic.slug')")
        unknown = set(mark.kwargs) - MARKER_ARGS
        if unknown:
            raise pytest.UsageError(f"{item.nodeid}: unknown claim marker arguments {sorted(unknown)}")
        as_written = bool(mark.kwargs.get("as_written", False))
        raises, match = mark.kwargs.get("raises"), mark.kwargs.get("match")
        if (raises is not None or match is not None) and not as_written:
            raise pytest.UsageError(f"{item.nodeid}: raises=/match= belong on an as_written=True claim marker")
        if match is not None and raises is None:
            raise pytest.UsageError(f"{item.nodeid}: match= needs raises= (the exception type it matches)")
        links.append(Link(mark.args[0], as_written, raises, match))
    return links


@dataclasses.dataclass(frozen=True)
class SpecSource:
    """One test function of a spec file, read from source: what the lints need beside its links."""
    name: str                          # "specs/test_x.py::test_y"
    func: ast.FunctionDef | ast.AsyncFunctionDef
    module: ast.Module                 # the file's parsed source
    links: tuple[tuple[str, bool], ...]   # (claim id, as_written): the module's pytestmark, then its own


def module_marks(tree: ast.Module) -> list[ast.expr]:
    """The values of the module-level ``pytestmark = ...`` assignments (the last one wins in pytest)."""
    marks = [node.value for node in tree.body if isinstance(node, ast.Assign)
             and any(getattr(t, "id", None) == "pytestmark" for t in node.targets)]
    return marks[-1:]


@functools.lru_cache(maxsize=512)
def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse``, once per source text: ``check`` reads each spec file in five passes (links,
    gpu guards, CUDA uses, labels, the spec lint), and the workbook's manifest check each reference
    module once per function. The tree is shared: read it, never change it in place."""
    return ast.parse(source, filename=filename)


def file_sources(path: pathlib.Path, name: str, tree: ast.Module | None = None) -> list[SpecSource]:
    """Every test function of one spec file with its claim links, read from its source.

    ``tree``: the file's parsed source, where the caller has it already."""
    if tree is None:
        tree = parse(pathlib.Path(path).read_text(encoding="utf-8"), str(path))
    shared = [m for node in module_marks(tree) for m in claim_calls(node)]
    return [SpecSource(f"{name}::{node.name}", node, tree,
                       tuple(shared + [m for d in node.decorator_list for m in claim_calls(d)]))
            for node in _definitions(tree) if node.name.startswith("test")]


def _definitions(tree: ast.Module):
    """The functions pytest can collect, in ``ast.walk``'s order: not the ones defined inside a
    function's body, and without walking bodies and expressions (five times faster than a
    whole walk, which ``--learn`` paid on every run, through the lesson manifest's check)."""
    queue = collections.deque([tree])
    while queue:
        node = queue.popleft()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node
        else:
            queue.extend(child for child in ast.iter_child_nodes(node) if not isinstance(child, ast.expr))


def file_links(path: pathlib.Path, name: str, tree: ast.Module | None = None) -> dict[str, list[tuple[str, bool]]]:
    """The claim links of one spec file, read from its source: id -> [(name::test, as_written)]."""
    links: dict[str, list[tuple[str, bool]]] = {}
    for spec in file_sources(path, name, tree):
        for cid, as_written in spec.links:
            links.setdefault(cid, []).append((spec.name, as_written))
    return links


def spec_sources(specs_dir: pathlib.Path, root: pathlib.Path | None = None,
                 pattern: str = "test_*.py") -> list[SpecSource]:
    """Every test function of every spec file of ``specs_dir``, named relative to ``root``
    (default: the folder above ``specs_dir``, so names read ``specs/test_x.py::test_y``)."""
    root = pathlib.Path(specs_dir).parent if root is None else pathlib.Path(root)
    return [spec for path in sorted(pathlib.Path(specs_dir).glob(pattern))
            for spec in file_sources(path, path.relative_to(root).as_posix())]


def spec_links(specs_dir: pathlib.Path, root: pathlib.Path | None = None,
               pattern: str = "test_*.py") -> dict[str, list[tuple[str, bool]]]:
    """Claim id -> [(spec name, as_written)] over every spec file of ``specs_dir`` (no import)."""
    links: dict[str, list[tuple[str, bool]]] = {}
    for spec in spec_sources(specs_dir, root, pattern):
        for cid, as_written in spec.links:
            links.setdefault(cid, []).append((spec.name, as_written))
    return links


def bench_links(bench_dir: pathlib.Path) -> dict[str, list[str]]:
    """Claim id -> the benchmarks (``bench_<topic>.py::test_name``) whose ``claim`` marker names it."""
    return {cid: [name for name, _ in found]
            for cid, found in spec_links(bench_dir, pathlib.Path(bench_dir), "bench_*.py").items()}


def marker_calls(node) -> list[ast.Call]:
    """Each ``claim("id", ...)`` call inside an AST node (a decorator, a pytestmark), as written."""
    return [call for call in ast.walk(node)
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "claim"
            and call.args and isinstance(call.args[0], ast.Constant)]


def marker_argument(call: ast.Call, name: str) -> ast.expr | None:
    """The source of a claim marker's keyword argument (``raises=``, ``match=``), or None."""
    return next((k.value for k in call.keywords if k.arg == name), None)


def is_as_written(call: ast.Call) -> bool:
    value = marker_argument(call, "as_written")
    return isinstance(value, ast.Constant) and bool(value.value)


def claim_calls(node) -> list[tuple[str, bool]]:
    """(claim id, as_written) of each ``claim(...)`` call inside an AST node (a decorator, a pytestmark)."""
    return [(call.args[0].value, is_as_written(call)) for call in marker_calls(node)]


FIGURE_VERDICT = "gpu-only"   # a figure claim's catalog verdict: a GPU's figure, which only a benchmark measures


@functools.cache
def _benchmarked(bench_dir: str) -> frozenset[str]:
    return frozenset(bench_links(pathlib.Path(bench_dir)))


def is_figure(claim: Claim, bench_dir: pathlib.Path = ROOT / "benchmarks") -> bool:
    """A figure claim: gpu-only, and measured by a benchmark (its claim marker in ``bench_dir``)."""
    return claim.verdict == FIGURE_VERDICT and claim.id in _benchmarked(str(bench_dir))


def figure_claims(claims: dict[str, Claim], bench_dir: pathlib.Path = ROOT / "benchmarks") -> set[str]:
    """The ids of the figure claims of ``claims`` (``is_figure``)."""
    return {cid for cid, claim in claims.items() if is_figure(claim, bench_dir)}
