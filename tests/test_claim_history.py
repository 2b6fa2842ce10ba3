"""The committed claim history (reports/claims/) against the catalog's ``versions`` ranges."""
import dataclasses
import pathlib

import pytest

from torchclaims import catalog, matrix

REPORTS = sorted(str(p) for p in (catalog.ROOT / "reports" / "claims").glob("torch-*.json"))


@pytest.fixture(scope="module")
def history():
    if not REPORTS:
        pytest.fail("no committed claim reports in reports/claims/: run nox -s claims")
    claims = catalog.load()
    return [matrix.rederive(r, claims) for r in matrix.load_reports(REPORTS)]


def test_the_history_covers_every_minor_release_from_1_13_to_2_15(history):
    """One report per minor release: 1.13 and 2.0 to 2.15 (the releases noxfile.py measures)."""
    minors = sorted({".".join(r["torch"].split("+")[0].split(".")[:2]) for r in history},
                    key=lambda v: tuple(map(int, v.split("."))))
    expected = ["1.13"] + [f"2.{n}" for n in range(16)]
    assert minors == expected, f"missing: {sorted(set(expected) - set(minors))}"
    assert len(history) == len(expected), "two reports for one minor release"


def test_no_committed_cell_is_broken_or_contradicts(history):
    """Every cell is a verdict: a spec that broke on a release was fixed and that release measured again."""
    bad = [(r["torch"], cid) for r in history for cid, c in r["claims"].items()
           if c.get("material") in ("broken", "contradiction")]
    assert not bad, bad


def test_every_versions_range_agrees_with_the_measured_cells(history):
    problems = matrix.versions_disagreements(catalog.load(), history)
    assert not problems, "\n".join(problems)


def test_a_planted_wrong_range_is_caught(history):
    claims = catalog.load()
    cid = "modules.whole-model-torch-load"
    assert claims[cid].versions == "<2.6"
    claims[cid] = dataclasses.replace(claims[cid], versions="<2.9")
    problems = matrix.versions_disagreements(claims, history)
    assert any(p.startswith(cid) and "holds on 2.6.0, measured wrong" in p for p in problems), problems


def test_a_flip_without_a_range_is_caught(history):
    claims = catalog.load()
    cid = "autograd.zero-grad-sets-none"
    claims[cid] = dataclasses.replace(claims[cid], versions=None)
    problems = matrix.versions_disagreements(claims, history)
    assert f"{cid}: flips to wrong on 2.0.1 but has no versions range" in problems, problems


def test_the_committed_matrix_is_rendered_from_the_committed_reports(history, tmp_path):
    claims = catalog.load()
    data = matrix.build(history)
    committed = (catalog.ROOT / "reports" / "matrix.md").read_text(encoding="utf-8")
    assert committed == matrix.render_markdown(history, data, claims), (
        "reports/matrix.md is stale: run python -m torchclaims matrix reports/claims/torch-*.json -o reports/matrix")
