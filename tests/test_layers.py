"""The layering of torchclaims/: lower modules never import higher ones, no import circle,
and no import hidden inside a function (the usual way to dodge a circle).

The one layer list is ``torchclaims.LAYERS`` (0 base, 1 results, 2 views, 3 entries);
CONTRIBUTING.md's map ("Where things live") is checked against it here. A subpackage
(``torchclaims/bench/``) is one entry: its modules share its layer.
"""
import ast
import pathlib
import re

import pytest

from torchclaims import INNER, LAYER_NAMES, LAYERS, MAX_CHAIN

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "torchclaims"
CONTRIBUTING = PACKAGE.parent / "CONTRIBUTING.md"


def unit_of(path: pathlib.Path, package: pathlib.Path = PACKAGE) -> str:
    """The LAYERS entry of a file: its module name, or its subpackage's name."""
    rel = path.relative_to(package)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def imports_of(path: pathlib.Path, package: pathlib.Path | None = None) -> list[tuple[str, int, bool]]:
    """(imported torchclaims entry, line, inside a function) for each import in ``path``.

    ``package``: the torchclaims folder ``path`` lies in (default: its own folder), so that a
    relative import inside a subpackage (``from .rows import`` in ``bench/``) names the subpackage."""
    package = package or path.parent
    depth = len(path.relative_to(package).parts) - 1     # 0 for torchclaims/x.py, 1 for bench/x.py
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.ImportFrom) and (child.level or (child.module or "").startswith("torchclaims")):
                if child.level:
                    inside = path.relative_to(package).parts[:depth][:max(0, depth - child.level + 1)]
                    dotted = [*inside, *(child.module.split(".") if child.module else [])]
                else:
                    dotted = child.module.split(".")[1:]
                names = dotted[:1] or [alias.name for alias in child.names]
                found.extend((name, child.lineno, in_function) for name in names)
            elif isinstance(child, ast.Import):
                found.extend((a.name.split(".")[1], child.lineno, in_function) for a in child.names
                             if a.name.startswith("torchclaims."))
            visit(child, nested)

    visit(tree, False)
    return found


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_a_module_imports_only_its_own_layer_or_below(path):
    unit = unit_of(path)
    assert unit in LAYERS, f"torchclaims/{path.relative_to(PACKAGE)}: give it a layer in torchclaims.LAYERS"
    for name, line, in_function in imports_of(path, PACKAGE):
        where = f"torchclaims/{path.relative_to(PACKAGE)}:{line}"
        assert not in_function, f"{where}: imports torchclaims.{name} inside a function; import it at the top"
        assert name in LAYERS, f"{where}: imports unknown module {name}"
        assert LAYERS[name] <= LAYERS[unit], (
            f"{where}: {unit} (layer {LAYERS[unit]}) imports {name} (layer {LAYERS[name]}): an upward import")


def test_every_layer_entry_is_a_module_of_the_package():
    units = {unit_of(p) for p in MODULES}
    assert sorted(set(LAYERS) - units) == [], "torchclaims.LAYERS names modules that do not exist"


def test_there_is_no_import_circle():
    graph: dict[str, set[str]] = {}
    for p in MODULES:
        graph.setdefault(unit_of(p), set()).update(n for n, _, _ in imports_of(p, PACKAGE) if n != unit_of(p))
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


def contributing_map(text: str) -> dict[str, int]:
    """Module -> layer from CONTRIBUTING's numbered list ``0. base: `errors`, ...`` (continuation
    lines indented), ending at the first blank line after it."""
    layers, current = {}, None
    for line in text.splitlines():
        head = re.match(r"^(\d)\. (\w+):", line)
        if head:
            current = int(head.group(1))
            assert head.group(2) == LAYER_NAMES[current], f"layer {current} is called {LAYER_NAMES[current]!r}"
        elif current is not None and not line.startswith(" "):
            if layers:
                break
            continue
        if current is not None:
            for name in re.findall(r"`(\w+)/?`", re.sub(r"\([^)]*\)", "", line)):
                layers[name] = current
    return layers


def test_contributing_prints_the_layer_list():
    """Every module in CONTRIBUTING's map at its layer, and none missing (``__init__`` aside)."""
    printed = contributing_map(CONTRIBUTING.read_text(encoding="utf-8"))
    expected = {name: layer for name, layer in LAYERS.items() if name != "__init__"}
    assert printed == expected


def test_the_map_reader_and_the_checker_catch_a_disagreement(tmp_path):
    """Planted: a map that moves lint to layer 1 and forgets reader; an upward import; an import
    in a function; a subpackage's relative import."""
    text = "intro\n0. base: `errors` (the error), `links`\n1. results: `lint`\n2. views: `scoreboard`\n\nrest `reader`\n"
    assert contributing_map(text) == {"errors": 0, "links": 0, "lint": 1, "scoreboard": 2}
    (tmp_path / "catalog.py").write_text("from .plugin import CATALOG\n", encoding="utf-8")
    (tmp_path / "outcomes.py").write_text("def f():\n    from . import cli\n", encoding="utf-8")
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "rows.py").write_text("from .rule import judge\nfrom ..strings import text\n"
                                                "from .. import cli\n", encoding="utf-8")
    assert imports_of(tmp_path / "catalog.py") == [("plugin", 1, False)]
    assert imports_of(tmp_path / "outcomes.py") == [("cli", 2, True)]
    assert imports_of(tmp_path / "bench" / "rows.py", tmp_path) == [("bench", 1, False), ("strings", 2, False),
                                                                    ("cli", 3, False)]


def inner_imports(path: pathlib.Path) -> list[tuple[str, int]]:
    """(module of the same folder, line) for each ``from .x import`` / ``from . import x`` in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names = [node.module.split(".")[0]] if node.module else [alias.name for alias in node.names]
            found.extend((name, node.lineno) for name in names)
    return found


def inner_order_problems(folder: pathlib.Path, order: tuple[str, ...]) -> list[str]:
    """A folder's modules against its ``INNER`` order: each listed, each importing only earlier ones."""
    modules = sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__")
    problems = [f"{folder.name}/{m}.py has no place in torchclaims.INNER" for m in modules if m not in order]
    problems += [f"INNER[{folder.name!r}] names {m}, which is not in the folder" for m in order if m not in modules]
    for module in modules:
        for name, line in inner_imports(folder / f"{module}.py"):
            if module in order and name in order and order.index(name) >= order.index(module):
                problems.append(f"{folder.name}/{module}.py:{line} imports {name}, which comes after it in its folder")
    return problems


FOLDERS = sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py"))


@pytest.mark.parametrize("folder", FOLDERS)
def test_a_folders_modules_import_only_the_ones_before_them(folder):
    assert folder in INNER, f"torchclaims/{folder}/: give its modules an order in torchclaims.INNER"
    assert inner_order_problems(PACKAGE / folder, INNER[folder]) == []


def import_graph(modules=MODULES, package=PACKAGE) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for p in modules:
        graph.setdefault(unit_of(p, package), set()).update(n for n, _, _ in imports_of(p, package) if n != unit_of(p, package))
    return graph


def longest_chain(graph: dict[str, set[str]], layers: dict[str, int]) -> dict[str, list[str]]:
    """Per module: its longest import chain down to the first base-layer module it reaches."""
    chains: dict[str, list[str]] = {}

    def walk(node):
        if node not in chains:
            below = [walk(n) for n in sorted(graph.get(node, ())) if layers[node] > 0]
            chains[node] = [node] + max(below, key=len, default=[])
        return chains[node]

    for node in graph:
        walk(node)
    return chains


# `python -m torchclaims` needs a __main__ module beside the package; it holds one import, of
# commands.main, so its chain is the command layer's plus one and says nothing of the layering.
DOOR = "__main__"


def test_no_import_chain_is_longer_than_the_layers():
    """At most one module a layer on the way down: the views render what the entries hand them (the
    reports are read by the commands and the plugin, not by a page), so a chain such as
    reader -> measured -> matrix -> bench -> outcomes -> catalog cannot come back."""
    chains = longest_chain(import_graph(), LAYERS)
    long = {m: " -> ".join(c) for m, c in chains.items() if len(c) > MAX_CHAIN and m != DOOR}
    assert long == {}


def test_the_chain_and_order_checks_catch_a_planted_one(tmp_path):
    """Planted: a view importing a view importing a result importing a result; a folder module
    importing one after it, and one without a place."""
    layers = {"base": 0, "r1": 1, "r2": 1, "v1": 2, "v2": 2, "e": 3}
    graph = {"e": {"v1"}, "v1": {"v2"}, "v2": {"r1"}, "r1": {"r2"}, "r2": {"base"}, "base": set()}
    assert longest_chain(graph, layers)["e"] == ["e", "v1", "v2", "r1", "r2", "base"]
    graph["v1"] = {"r1"}
    graph["v2"] = set()
    graph["r1"] = {"base"}
    assert max(len(c) for c in longest_chain(graph, layers).values()) <= 4
    (tmp_path / "pack").mkdir()
    (tmp_path / "pack" / "a.py").write_text("from .b import x\n", encoding="utf-8")
    (tmp_path / "pack" / "b.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "pack" / "c.py").write_text("", encoding="utf-8")
    assert inner_order_problems(tmp_path / "pack", ("a", "b")) == [
        "pack/c.py has no place in torchclaims.INNER", "pack/a.py:1 imports b, which comes after it in its folder"]
