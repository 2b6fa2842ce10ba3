"""The layering of torchclaims/: lower modules never import higher ones, no import circle,
and no import hidden inside a function (the usual way to dodge a circle).

The layers (CONTRIBUTING.md says the same in five lines):
0 base      errors, versions, catalog, links, impl, measure: the catalog and the claim links
1 results   outcomes, state, mutants, workbook: what a run found, the faults, the lessons
2 views     scoreboard, learn, matrix, bench_report, lint, strings: what people read
3 entries   plugin, cli, mutants_cli, __main__: pytest and the command line
A module imports only from its own layer or below. A new module must be given a layer here.
"""
import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "torchclaims"
LAYERS = {
    "errors": 0, "versions": 0, "catalog": 0, "links": 0, "impl": 0, "measure": 0, "strings": 0, "optional": 0, "files": 0,
    "segment": 0, "anchors": 0,
    "outcomes": 1, "state": 1, "mutants": 1, "workbook": 1,
    "scoreboard": 2, "learn": 2, "matrix": 2, "bench_report": 2, "lint": 2, "reader": 2,
    "plugin": 3, "cli": 3, "mutants_cli": 3, "gpu_check": 3, "suite_bench": 3, "__main__": 3, "__init__": 0,
}


def imports_of(path: pathlib.Path) -> list[tuple[str, int, bool]]:
    """(imported torchclaims module, line, inside a function) for each import in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.ImportFrom) and (child.level == 1 or (child.module or "").startswith("torchclaims")):
                base = (child.module or "").removeprefix("torchclaims").lstrip(".")
                names = [base] if base else [alias.name for alias in child.names]
                found.extend((name.split(".")[0], child.lineno, in_function) for name in names)
            elif isinstance(child, ast.Import):
                found.extend((a.name.split(".")[1], child.lineno, in_function) for a in child.names
                             if a.name.startswith("torchclaims."))
            visit(child, nested)

    visit(tree, False)
    return found


MODULES = sorted(p for p in PACKAGE.glob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.stem)
def test_a_module_imports_only_its_own_layer_or_below(path):
    assert path.stem in LAYERS, f"torchclaims/{path.name}: give the new module a layer in tests/test_layers.py"
    for name, line, in_function in imports_of(path):
        where = f"torchclaims/{path.name}:{line}"
        assert not in_function, f"{where}: imports torchclaims.{name} inside a function; import it at the top"
        assert name in LAYERS, f"{where}: imports unknown module {name}"
        assert LAYERS[name] <= LAYERS[path.stem], (
            f"{where}: {path.stem} (layer {LAYERS[path.stem]}) imports {name} (layer {LAYERS[name]}): an upward import")


def test_there_is_no_import_circle():
    graph = {p.stem: {n for n, _, _ in imports_of(p)} for p in MODULES}
    visiting, done = set(), set()

    def walk(node, trail):
        if node in visiting:
            raise AssertionError("import circle: " + " -> ".join(trail[trail.index(node):] + [node]))
        if node in done:
            return
        visiting.add(node)
        for nxt in sorted(graph.get(node, ())):
            walk(nxt, trail + [node])
        visiting.discard(node)
        done.add(node)

    for module in sorted(graph):
        walk(module, [])


def test_the_checker_catches_an_upward_import(tmp_path):
    (tmp_path / "catalog.py").write_text("from .plugin import CATALOG\n", encoding="utf-8")
    (tmp_path / "outcomes.py").write_text("def f():\n    from . import cli\n", encoding="utf-8")
    assert imports_of(tmp_path / "catalog.py") == [("plugin", 1, False)]
    assert imports_of(tmp_path / "outcomes.py") == [("cli", 2, True)]
