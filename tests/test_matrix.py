"""The claim matrix renderer: outcomes per version, changes highlighted, bad reports refused."""
import copy
import json

import pytest

from torchclaims import matrix
from torchclaims.cli import UsageError


def report(torch_version, outcomes):
    return {
        "schema_version": 1, "torch": torch_version, "python": "3.11.7", "platform": "Linux", "cuda": None,
        "device": "cpu", "claims": {
            cid: {"topic": cid.split(".")[0], "verdict": "confirmed", "outcome": outcome,
                  "reason": "needs CUDA: no GPU on this machine" if outcome == "skipped" else "", "tests": []}
            for cid, outcome in outcomes.items()},
    }


@pytest.fixture
def reports(tmp_path):
    base = {"tensors.a": "reproduced", "tensors.b": "reproduced", "numerics.c": "skipped"}
    paths = []
    for version in ("2.14.1", "2.5.1", "2.13.0"):
        path = tmp_path / f"torch-{version}.json"
        path.write_text(json.dumps(report(version, base)), encoding="utf-8")
        paths.append(str(path))
    return paths


def test_columns_are_torch_versions_in_version_order(reports):
    loaded = matrix.load_reports(reports)
    assert [r["torch"] for r in loaded] == ["2.5.1", "2.13.0", "2.14.1"]


def test_identical_runs_show_no_change_and_explain_skips(reports):
    loaded = matrix.load_reports(reports)
    text = matrix.render_markdown(loaded, matrix.build(loaded))
    assert "Changes between versions: 0" in text
    assert "1. needs CUDA: no GPU on this machine" in text
    assert "| `numerics.c` | confirmed | s<sup>1</sup> | s<sup>1</sup> | s<sup>1</sup> |" in text


def test_a_planted_change_on_one_version_is_highlighted(reports, tmp_path):
    """Flip one claim's outcome on torch 2.13.0 only: that cell, and the next, are the changes."""
    loaded = matrix.load_reports(reports)
    planted = copy.deepcopy(loaded)
    planted[1]["claims"]["tensors.b"]["outcome"] = "changed"
    data = matrix.build(planted)
    text = matrix.render_markdown(planted, data)
    assert "| `tensors.b` | confirmed | ✓ | **▲ ✗ CHANGED** | **▲ ✓** |" in text
    assert "Changes between versions: 2" in text
    assert "td class='changed delta'" in matrix.render_html(planted, data)


@pytest.mark.parametrize("content, fragment", [
    ("{not json", "not JSON"),
    ('{"schema_version": 1}', "not a torchclaims claim report"),
    ('{"schema_version": 1, "torch": "2", "python": "3", "platform": "p", "cuda": null, "device": "cpu", "claims": {"x": {}}}',
     "claims/x"),
])
def test_a_broken_report_is_refused_in_one_line(tmp_path, content, fragment):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(UsageError, match=fragment):
        matrix.load_reports([str(path)])


def test_a_missing_report_is_refused_in_one_line(tmp_path):
    with pytest.raises(UsageError, match="no such report file"):
        matrix.load_reports([str(tmp_path / "nope.json")])
