"""torchclaims: the claims of popular PyTorch learning material, as an executable specification."""
__version__ = "0.1.0"

# The one layer list of the package (CONTRIBUTING.md, "Where things live", prints the same map and
# tests/test_layers.py checks both): a module imports only its own layer or below, at the top of
# the file. A subpackage (``bench``, ``find``, ``commands``) is one entry; its modules share its layer. A new module gets
# a layer here, or the layering test fails.
LAYERS = {
    # 0 base: the catalog, the claim links, the strings, files and documents everything reads
    "__init__": 0, "errors": 0, "versions": 0, "catalog": 0, "links": 0, "impl": 0, "measure": 0,
    "strings": 0, "strings_en": 0, "strings_zh": 0, "strings_help_zh": 0, "strings_reasons_zh": 0,
    "optional": 0, "files": 0, "forked": 0, "anchors": 0, "segment": 0, "documents": 0,
    "clauses": 0, "survey": 0, "spec_ast": 0,
    # 1 results: what a run found and its report, the benchmarks' results, the faults, the lessons,
    # the finder's marks of a document
    "outcomes": 1, "reports": 1, "bench": 1, "expect": 1, "state": 1, "mutants": 1, "find": 1,
    # 2 views: what people read (reports, pages, lints)
    "scoreboard": 2, "workbook": 2, "history": 2, "lint": 2, "reader": 2,
    "doclint": 2, "catalog_view": 2, "mutants_run": 2, "anchoring": 2,
    # 3 entries: pytest and the command line
    "plugin": 3, "commands": 3, "gpu": 3, "suite_bench": 3, "setup_summary": 3, "__main__": 3,
}
LAYER_NAMES = ("base", "results", "views", "entries")

# A folder's inner order (tests/test_layers.py): a module of the folder imports only the modules
# before it here (its __init__ may import any of them); a new module of a folder gets its place.
INNER = {
    "bench": ("statistics", "recorded_zh", "phrases", "cells", "hardware", "results", "rule", "rows", "quotes",
              "verdicts", "across", "chart", "markdown", "command"),
    "find": ("normal", "words", "units", "structure", "stance", "cues", "similar", "features", "decide", "finder", "marks",
             "evaluate", "fit"),
    "history": ("table", "compare", "page"),
    "gpu": ("env", "check"),
    "workbook": ("book", "lessons"),
    "commands": ("options", "anchors", "bench_report", "check", "claims", "finder_eval", "finder_fit", "lint",
                 "matrix", "mutants", "read", "show", "workbook"),
}
# The longest import chain from a module down to the first base-layer module it reaches, both
# counted (a folder is one module): at most one module a layer, entries -> views -> results -> base.
MAX_CHAIN = len(LAYER_NAMES)
