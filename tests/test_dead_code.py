"""No dead code in the package: vulture over the package and everything that uses it (tests, specs,
benchmarks, planted faults, the reference code), reporting what in torchclaims/ nothing uses."""
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
USERS = ["torchclaims", "tests", "specs", "benchmarks", "mutants", "reference_impl", "conftest.py", "scripts"]
# Used, though nothing in the code reads them by name: pytest's hooks (called by pytest), the
# options the learner's run sets on pytest's config (read by pytest's terminal reporter), and the
# HelpFormatter methods argparse calls (errors._WideFormatter).
IGNORE_NAMES = ["pytest_*"]
USED_BY_LIBRARIES = {"tbstyle", "reportchars", "_split_lines", "_fill_text"}


def unused(paths, package=ROOT / "torchclaims"):
    vulture = pytest.importorskip("vulture")
    found = vulture.Vulture(ignore_names=IGNORE_NAMES)
    found.scavenge([str(ROOT / p) for p in paths])
    return [item.get_report() for item in found.get_unused_code(min_confidence=60)
            if package in pathlib.Path(item.filename).resolve().parents and item.name not in USED_BY_LIBRARIES]


def test_nothing_in_the_package_is_unused():
    assert unused(USERS) == []


def test_a_planted_unused_function_is_found(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "dead.py").write_text("def never_called():\n    return 1\n\n\ndef called():\n    return 2\n",
                                     encoding="utf-8")
    (tmp_path / "user.py").write_text("from pkg.dead import called\ncalled()\n", encoding="utf-8")
    found = unused([package, tmp_path / "user.py", *USERS], package)
    assert [line.split(": ", 1)[1] for line in found] == ["unused function 'never_called' (60% confidence)"]
