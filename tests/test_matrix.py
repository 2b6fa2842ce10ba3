"""The claim history renderer: verdicts per release, flips, since/until, bad reports refused."""
import copy
import json

import pytest

from torchclaims import matrix, outcomes
from torchclaims.errors import UsageError


def entry(material, expected="right", reason=""):
    outcome = material if material in ("broken", "not-applicable", "skipped") else (
        "reproduced" if material == expected else "changed")
    return {"topic": "tensors", "verdict": "confirmed", "source": ["000_9a03721c87560f23.txt §2"],
            "material": material, "expected": expected, "outcome": outcome, "reason": reason, "tests": []}


def report(torch_version, cells):
    return {"schema_version": outcomes.SCHEMA_VERSION, "torch": torch_version, "torchvision": None,
            "python": "3.11.7", "platform": "Linux", "cuda": None, "device": "cpu",
            "claims": {cid: copy.deepcopy(e) for cid, e in cells.items()}}


VERSIONS = ("1.13.1", "2.0.1", "2.5.1", "2.6.0", "2.14.1")


@pytest.fixture
def reports(tmp_path):
    """Five releases; tensors.steady holds everywhere, numerics.gpu is skipped everywhere."""
    paths = []
    for version in reversed(VERSIONS):   # written out of order on purpose
        cells = {"tensors.steady": entry("right"),
                 "numerics.gpu": entry("skipped", None, "needs CUDA: no GPU on this machine")}
        path = tmp_path / f"torch-{version}.json"
        path.write_text(json.dumps(report(version, cells)), encoding="utf-8")
        paths.append(str(path))
    return paths


def plant(reports, cid, materials):
    loaded = matrix.load_reports(reports)
    for r, value in zip(loaded, materials):
        r["claims"][cid] = entry(value, value) if value else None
        if not value:
            del r["claims"][cid]
    return loaded


def test_columns_are_torch_releases_in_version_order(reports):
    assert [r["torch"] for r in matrix.load_reports(reports)] == list(VERSIONS)


def test_a_steady_claim_holds_everywhere_and_skips_explain_themselves(reports):
    loaded = matrix.load_reports(reports)
    data = matrix.build(loaded)
    rows = {row["id"]: row for row in data["rows"]}
    assert rows["tensors.steady"]["history"] == "holds on every release"
    assert rows["numerics.gpu"]["history"].startswith("never measured")
    text = matrix.render_markdown(loaded, data)
    assert "No claim changed its verdict" in text and "1. needs CUDA: no GPU on this machine" in text


def test_a_flip_is_listed_with_the_release_where_it_happened(reports):
    loaded = plant(reports, "modules.load", ["right", "right", "right", "wrong", "wrong"])
    data = matrix.build(loaded)
    assert data["flips"] == [{"claim": "modules.load", "topic": "tensors", "from": "right", "to": "wrong",
                              "since": "2.6.0", "after": "2.5.1"}]
    row = next(r for r in data["rows"] if r["id"] == "modules.load")
    assert row["history"] == "holds up to 2.5.1, wrong since 2.6.0"
    text = matrix.render_markdown(loaded, data)
    assert "| `modules.load` | holds | wrong | **2.6.0** | 2.5.1 |" in text
    assert "| ✓ | ✓ | ✓ | **▲ ✗** | ✗ |" in text


def test_unmeasured_releases_between_two_runs_give_an_at_most_bound(reports):
    loaded = plant(reports, "autograd.z", ["right", None, None, "wrong", "wrong"])
    row = next(r for r in matrix.build(loaded)["rows"] if r["id"] == "autograd.z")
    assert row["history"] == "holds up to 1.13.1, wrong since ≤2.6.0"


def test_three_runs_read_as_from_to(reports):
    loaded = plant(reports, "compile.x", ["wrong", "right", "right", "wrong", "wrong"])
    row = next(r for r in matrix.build(loaded)["rows"] if r["id"] == "compile.x")
    assert row["history"] == "wrong up to 1.13.1, holds from 2.0.1 to 2.5.1, wrong since 2.6.0"


def test_not_applicable_cells_do_not_flip(reports):
    loaded = plant(reports, "compile.y", ["not-applicable", "not-applicable", "right", "right", "right"])
    data = matrix.build(loaded)
    assert not data["flips"]
    row = next(r for r in data["rows"] if r["id"] == "compile.y")
    assert row["history"] == "holds on every release measured (3 of 5)"


def test_the_summary_counts_flips_and_steady_claims(reports):
    loaded = plant(reports, "modules.load", ["right", "right", "right", "wrong", "wrong"])
    text = matrix.render_markdown(loaded, matrix.build(loaded))
    assert "changed between releases: 1 claims, 1 flips" in text
    assert "the material holds on every release where it was measured: 1 claims" in text


def test_a_cell_the_catalog_does_not_expect_is_marked(reports):
    loaded = matrix.load_reports(reports)
    loaded[2]["claims"]["tensors.steady"] = entry("wrong", "right")
    text = matrix.render_markdown(loaded, matrix.build(loaded))
    assert "**▲ ✗ ≠**" in text


def test_the_html_carries_filters_and_the_rows_as_data(reports):
    loaded = plant(reports, "modules.load", ["right", "right", "right", "wrong", "wrong"])
    page = matrix.render_html(loaded, matrix.build(loaded))
    for control in ("id='topic'", "id='verdict'", "id='changed'", "id='lang'"):
        assert control in page
    assert '"history": "holds up to 2.5.1, wrong since 2.6.0"' in page


def test_compare_flags_an_unexpected_change_and_exits_1(reports, tmp_path, capsys):
    old, new = (json.loads(open(p, encoding="utf-8").read()) for p in (reports[-1], reports[0]))  # 1.13.1, 2.14.1
    new["claims"]["tensors.steady"] = entry("wrong", "right", "truth spec t failed")
    new_path = tmp_path / "new.json"
    new_path.write_text(json.dumps(new), encoding="utf-8")
    assert matrix.main(["--compare", reports[-1], str(new_path)]) == 1
    out = capsys.readouterr().out
    assert "UNEXPECTED  tensors.steady: right on 1.13.1 -> wrong on 2.14.1: truth spec t failed" in out


def test_compare_accepts_a_change_the_catalog_expects(reports, tmp_path, capsys):
    new = json.loads(open(reports[0], encoding="utf-8").read())
    new["claims"]["tensors.steady"] = entry("wrong", "wrong")
    new_path = tmp_path / "new.json"
    new_path.write_text(json.dumps(new), encoding="utf-8")
    assert matrix.main(["--compare", reports[-1], str(new_path)]) == 0
    assert "expected  tensors.steady: right on 1.13.1 -> wrong" in capsys.readouterr().out


def test_compare_needs_two_reports(reports):
    with pytest.raises(UsageError, match="exactly two reports"):
        matrix.main(["--compare", reports[0]])


@pytest.mark.parametrize("content, fragment", [
    ("{not json", "not JSON"),
    ('{"schema_version": 2}', "not a torchclaims claim report"),
    ('{"schema_version": 1, "torch": "2", "python": "3", "platform": "p", "cuda": null, "device": "cpu", "claims": {}}',
     "schema_version"),
])
def test_a_broken_report_is_refused_in_one_line(tmp_path, content, fragment):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(UsageError, match=fragment):
        matrix.load_reports([str(path)])


def test_a_missing_report_or_a_directory_is_refused_in_one_line(tmp_path):
    with pytest.raises(UsageError, match="no such report file"):
        matrix.load_reports([str(tmp_path / "nope.json")])
    with pytest.raises(UsageError, match="is a directory"):
        matrix.load_reports([str(tmp_path)])


def test_a_report_is_rederived_from_its_spec_results_with_the_current_catalog():
    """The material's verdict comes from what the specs did; the expectation from today's catalog."""
    from torchclaims import catalog
    claims = catalog.load()
    cid = "modules.whole-model-torch-load"   # versions = "<2.6"
    tests = [{"id": "a.py::as_written", "as_written": True, "status": "failed", "result": "held", "reason": ""},
             {"id": "a.py::truth", "as_written": False, "status": "xfailed", "result": "failed", "reason": "x"}]
    stale = {"topic": "modules", "verdict": "refuted", "source": [], "material": "wrong", "expected": "wrong",
             "outcome": "reproduced", "reason": "", "tests": tests}
    for version, outcome in (("2.5.1", "reproduced"), ("2.6.0", "changed")):
        r = matrix.rederive(report(version, {cid: stale}), claims)
        e = r["claims"][cid]
        assert (e["material"], e["outcome"], e["verdict"]) == ("right", outcome, claims[cid].verdict), (version, e)
