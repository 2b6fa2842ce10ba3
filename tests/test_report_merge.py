"""Merging a later run of a few spec files into a release's claims report (``reports.merge_report``):
how claims added after a release was measured get their history without measuring it whole again."""
import json
import pathlib

import pytest

from torchclaims import reports as claim_reports

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _entry(outcome="reproduced", tests=("specs/test_a.py::test_x",)):
    return {"topic": "tensors", "verdict": "confirmed", "material": "right", "expected": "right", "outcome": outcome,
            "tests": [{"id": t, "as_written": False, "status": "passed", "result": "held"} for t in tests]}


def _report(claims, commit="aaa1111", torch="2.4.0", **extra):
    return {"schema_version": claim_reports.SCHEMA_VERSION, "torch": torch, "python": "3.11", "platform": "p",
            "cuda": None, "device": "cpu", "commit": commit, "argv": ["specs/"], "claims": claims, **extra}


def test_a_part_adds_the_claims_it_ran_and_keeps_the_others():
    base = _report({"t.old": _entry(), "t.new": _entry("skipped", tests=())})
    part = _report({"t.old": _entry("skipped", tests=()), "t.new": _entry()}, commit="bbb2222")
    merged = claim_reports.merge_report(base, part)
    assert merged["claims"]["t.old"] == base["claims"]["t.old"], "a claim the part did not run was replaced"
    assert merged["claims"]["t.new"] == part["claims"]["t.new"]
    assert merged["parts"] == [{"commit": "bbb2222", "argv": ["specs/"], "claims": ["t.new"]}]
    claim_reports.validate_report(merged)
    assert "parts" not in base, "the base report was changed in place"


def test_each_claim_names_the_commit_that_measured_it():
    base = _report({"t.old": _entry()})
    merged = claim_reports.merge_report(claim_reports.merge_report(base, _report({"t.new": _entry()}, commit="bbb2222")),
                                   _report({"t.newer": _entry()}, commit="ccc3333"))
    assert [claim_reports.commit_of(merged, c) for c in ("t.old", "t.new", "t.newer")] == ["aaa1111", "bbb2222", "ccc3333"]


def test_a_claim_measured_again_leaves_the_earlier_part_and_an_emptied_part_goes():
    """Material: none (tooling).  True: a part lists only the claims whose results are its own: a
    rerun of a spec file (a fixed spec) takes its claims out of the earlier part, and a part left
    with none is dropped, so no part names a run none of whose results are in the report."""
    base = _report({"t.old": _entry()})
    first = claim_reports.merge_report(base, _report({"t.a": _entry(), "t.b": _entry()}, commit="bbb2222"))
    second = claim_reports.merge_report(first, _report({"t.b": _entry("changed")}, commit="ccc3333"))
    assert second["parts"] == [{"commit": "bbb2222", "argv": ["specs/"], "claims": ["t.a"]},
                               {"commit": "ccc3333", "argv": ["specs/"], "claims": ["t.b"]}]
    third = claim_reports.merge_report(second, _report({"t.b": _entry()}, commit="ddd4444"))
    assert [p["commit"] for p in third["parts"]] == ["bbb2222", "ddd4444"], "the emptied ccc3333 part stayed"
    assert [claim_reports.commit_of(third, c) for c in ("t.old", "t.a", "t.b")] == ["aaa1111", "bbb2222", "ddd4444"]


@pytest.mark.parametrize("part, why", [
    (_report({"t.new": _entry()}, torch="2.5.0"), "torch '2.5.0'"),
    (_report({"t.new": _entry()}, interrupted=True), "interrupted"),
    ({"claims": {}}, "not a torchclaims claim report"),
])
def test_a_part_of_another_torch_an_interrupted_one_or_no_report_is_refused(part, why):
    with pytest.raises(ValueError, match=why):
        claim_reports.merge_report(_report({"t.old": _entry()}), part)


def test_the_committed_reports_with_parts_are_valid_and_name_their_commits():
    for path in sorted((ROOT / "reports" / "claims").glob("torch-*.json")):
        report = json.loads(path.read_text(encoding="utf-8"))
        claim_reports.validate_report(report)
        seen = set()
        for part in report.get("parts", []):
            assert part["claims"] and set(part["claims"]) <= set(report["claims"]), path.name
            assert not seen & set(part["claims"]), f"{path.name}: a claim in two parts (claim_reports.superseded)"
            seen |= set(part["claims"])


@pytest.mark.e2e
def test_the_history_session_merges_a_part_file_into_the_report_whole(tmp_path):
    import subprocess
    import sys
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    merge = noxfile.split("MERGE = (", 1)[1].split(")\n", 1)[0]
    code = eval("(" + merge + ")")   # the one-line program the nox session runs in the release's venv
    base, part = tmp_path / "torch-2.4.0.json", tmp_path / "part.json"
    base.write_text(json.dumps(_report({"t.old": _entry()})), encoding="utf-8")
    part.write_text(json.dumps(_report({"t.new": _entry()}, commit="bbb2222")), encoding="utf-8")
    subprocess.run([sys.executable, "-c", code, str(base), str(part)], cwd=ROOT, check=True, timeout=60)
    merged = json.loads(base.read_text(encoding="utf-8"))
    assert set(merged["claims"]) == {"t.old", "t.new"} and merged["parts"][0]["commit"] == "bbb2222"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["part.json", "torch-2.4.0.json"]
