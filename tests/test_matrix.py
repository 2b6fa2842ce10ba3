"""The claim history renderer: verdicts per release and device, flips, since/until, the kinds of
unmeasured cells, compare, and where the output goes; bad reports refused."""
import copy
import json
import os
import subprocess

import pytest

from torchclaims import catalog, commands, files, reports as claim_reports
from torchclaims.errors import UsageError
from torchclaims.history import page as history_page, table as history_table


def entry(material, expected="right", reason=""):
    outcome = material if material in ("broken", "not-applicable", "skipped") else "skipped" if (
        material == "not-measurable") else ("reproduced" if material == expected else "changed")
    return {"topic": "tensors", "verdict": "confirmed", "source": ["000_9a03721c87560f23.txt §2"],
            "material": material, "expected": expected, "outcome": outcome, "reason": reason, "tests": []}


def report(torch_version, cells):
    return {"schema_version": claim_reports.SCHEMA_VERSION, "torch": torch_version, "torchvision": None,
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
    loaded = claim_reports.load_reports(reports)
    for r, value in zip(loaded, materials):
        r["claims"][cid] = entry(value, value) if value else None
        if not value:
            del r["claims"][cid]
    return loaded


def test_columns_are_torch_releases_in_version_order(reports):
    assert [r["torch"] for r in claim_reports.load_reports(reports)] == list(VERSIONS)


def test_a_steady_claim_holds_everywhere_and_skips_explain_themselves(reports):
    loaded = claim_reports.load_reports(reports)
    data = claim_reports.history_data(loaded)
    rows = {row["id"]: row for row in data["rows"]}
    assert rows["tensors.steady"]["history"] == "holds on every release"
    assert rows["numerics.gpu"]["history"].startswith("never measured")
    text = history_table.render_markdown(loaded, data)
    assert "No claim changed its verdict" in text and "1. needs CUDA: no GPU on this machine" in text


def test_a_flip_is_listed_with_the_release_where_it_happened(reports):
    loaded = plant(reports, "modules.load", ["right", "right", "right", "wrong", "wrong"])
    data = claim_reports.history_data(loaded)
    assert data["flips"] == [{"claim": "modules.load", "topic": "tensors", "from": "right", "to": "wrong",
                              "since": "2.6.0", "after": "2.5.1", "device": "cpu"}]
    row = next(r for r in data["rows"] if r["id"] == "modules.load")
    assert row["history"] == "holds up to 2.5.1, wrong since 2.6.0"
    text = history_table.render_markdown(loaded, data)
    assert "| `modules.load` | holds | wrong | **2.6.0** | 2.5.1 |" in text
    assert "| ✓ | ✓ | ✓ | **▲ ✗** | ✗ |" in text


def test_unmeasured_releases_between_two_runs_give_an_at_most_bound(reports):
    loaded = plant(reports, "autograd.z", ["right", None, None, "wrong", "wrong"])
    row = next(r for r in claim_reports.history_data(loaded)["rows"] if r["id"] == "autograd.z")
    assert row["history"] == "holds up to 1.13.1, wrong since ≤2.6.0"


def test_three_runs_read_as_from_to(reports):
    loaded = plant(reports, "compile.x", ["wrong", "right", "right", "wrong", "wrong"])
    row = next(r for r in claim_reports.history_data(loaded)["rows"] if r["id"] == "compile.x")
    assert row["history"] == "wrong up to 1.13.1, holds from 2.0.1 to 2.5.1, wrong since 2.6.0"


def test_not_applicable_cells_do_not_flip(reports):
    loaded = plant(reports, "compile.y", ["not-applicable", "not-applicable", "right", "right", "right"])
    data = claim_reports.history_data(loaded)
    assert not data["flips"]
    row = next(r for r in data["rows"] if r["id"] == "compile.y")
    assert row["history"] == "holds on every release measured (3 of 5)"


def test_a_not_measurable_cell_neither_opens_nor_closes_a_range(reports):
    loaded = plant(reports, "numerics.scaler", ["right", "not-measurable", "not-measurable", "wrong", "wrong"])
    data = claim_reports.history_data(loaded)
    row = next(r for r in data["rows"] if r["id"] == "numerics.scaler")
    assert row["history"] == "holds up to 1.13.1, wrong since ≤2.6.0", row["history"]
    assert [f["since"] for f in data["flips"]] == ["2.6.0"], data["flips"]
    assert [c["material"] for c in row["cells"]][1:3] == ["not-measurable"] * 2


def test_unmeasured_cells_of_each_kind_have_their_own_mark_and_note(reports):
    loaded = claim_reports.load_reports(reports)
    kinds = {"not-applicable": "not applicable on torch 1.13.1: needs torch>=2.0 (torch.compile appeared in 2.0)",
             "not-measurable": "needs CUDA: no GPU on this machine", "skipped": "no spec selected in this run"}
    for r, (kind, reason) in zip(loaded, kinds.items()):
        r["claims"]["compile.k"] = entry(kind, None, reason)
    text = history_table.render_markdown(loaded, claim_reports.history_data(loaded))
    row = next(line for line in text.splitlines() if line.startswith("| `compile.k`"))
    assert "| n/a<sup>" in row and "| ⊘<sup>" in row and "| s<sup>" in row, row
    assert "n/a not applicable: the API or behaviour" in text and "⊘ not measurable here" in text
    assert "never measured (2 not in the report, 1 not applicable, 1 not measurable here, 1 skipped)" in row, row


def test_several_patches_of_one_minor_are_columns_and_since_names_the_first(tmp_path):
    """2.0.0 and 2.0.1 both measured: a change that landed in 2.0.0 reads "since 2.0.0"."""
    paths = []
    for version, value in (("1.13.1", "right"), ("2.0.0", "wrong"), ("2.0.1", "wrong"), ("2.1.2", "wrong")):
        path = tmp_path / f"torch-{version}.json"
        path.write_text(json.dumps(report(version, {"autograd.z": entry(value, value)})), encoding="utf-8")
        paths.append(str(path))
    data = claim_reports.history_data(claim_reports.load_reports(paths[::-1]))
    assert data["versions"] == ["1.13.1", "2.0.0", "2.0.1", "2.1.2"]
    assert data["rows"][0]["history"] == "holds up to 1.13.1, wrong since 2.0.0"
    assert [(f["since"], f["after"]) for f in data["flips"]] == [("2.0.0", "1.13.1")]


def test_two_reports_of_one_release_and_device_are_refused(reports, tmp_path):
    twin = tmp_path / "again.json"
    twin.write_text(open(reports[0], encoding="utf-8").read(), encoding="utf-8")
    with pytest.raises(UsageError, match=r"two reports for torch 2\.14\.1: .*torch-2\.14\.1\.json and .*again\.json"):
        claim_reports.history_data(claim_reports.load_reports(reports + [str(twin)]))


def test_the_summary_counts_flips_and_steady_claims(reports):
    loaded = plant(reports, "modules.load", ["right", "right", "right", "wrong", "wrong"])
    text = history_table.render_markdown(loaded, claim_reports.history_data(loaded))
    assert "changed between releases: 1 claim, 1 flip" in text
    assert "the material holds on every release where it was measured: 1 claim" in text


def test_a_cell_the_catalog_does_not_expect_is_marked(reports):
    loaded = claim_reports.load_reports(reports)
    loaded[2]["claims"]["tensors.steady"] = entry("wrong", "right")
    text = history_table.render_markdown(loaded, claim_reports.history_data(loaded))
    assert "**▲ ✗ ≠**" in text


def test_the_html_carries_filters_and_the_rows_as_data(reports):
    loaded = plant(reports, "modules.load", ["right", "right", "right", "wrong", "wrong"])
    page = history_page.render_html(loaded, claim_reports.history_data(loaded))
    for control in ("id='topic'", "id='verdict'", "id='changed'", "id='lang'"):
        assert control in page
    assert '"history": "holds up to 2.5.1, wrong since 2.6.0"' in page


def test_the_html_filters_by_the_kind_of_unmeasured_cell(reports):
    loaded = plant(reports, "numerics.scaler", ["not-measurable", "right", "right", "right", "right"])
    page = history_page.render_html(loaded, claim_reports.history_data(loaded))
    assert "id='state'" in page and ("<option value='not-measurable' data-en='not measurable here (⊘)' "
                                     "data-zh='本机无法测量 (⊘)'>not measurable here (⊘)</option>") in page
    assert "row.cells.some(cell => cell.material === state)" in page


def test_compare_flags_an_unexpected_change_and_exits_1(reports, tmp_path, capsys):
    old, new = (json.loads(open(p, encoding="utf-8").read()) for p in (reports[-1], reports[0]))  # 1.13.1, 2.14.1
    new["claims"]["tensors.steady"] = entry("wrong", "right", "truth spec t failed")
    new_path = tmp_path / "new.json"
    new_path.write_text(json.dumps(new), encoding="utf-8")
    assert commands.main(["matrix", "--compare", reports[-1], str(new_path)]) == 1
    out = capsys.readouterr().out
    assert "UNEXPECTED  tensors.steady: right on 1.13.1 -> wrong on 2.14.1: truth spec t failed" in out


def test_compare_accepts_a_change_the_catalog_expects(reports, tmp_path, capsys):
    new = json.loads(open(reports[0], encoding="utf-8").read())
    new["claims"]["tensors.steady"] = entry("wrong", "wrong")
    new_path = tmp_path / "new.json"
    new_path.write_text(json.dumps(new), encoding="utf-8")
    assert commands.main(["matrix", "--compare", reports[-1], str(new_path)]) == 0
    assert "expected  tensors.steady: right on 1.13.1 -> wrong" in capsys.readouterr().out


def test_compare_needs_two_reports(reports, capsys):
    assert commands.main(["matrix", "--compare", reports[0]]) == 2
    assert "exactly two reports" in capsys.readouterr().err


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
        claim_reports.load_reports([str(path)])


def test_a_missing_report_or_a_directory_is_refused_in_one_line(tmp_path):
    with pytest.raises(UsageError, match="no such report file"):
        claim_reports.load_reports([str(tmp_path / "nope.json")])
    with pytest.raises(UsageError, match="is a directory"):
        claim_reports.load_reports([str(tmp_path)])


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
        r = claim_reports.rederive(report(version, {cid: stale}), claims, links={})
        e = r["claims"][cid]
        assert (e["material"], e["outcome"], e["verdict"]) == ("right", outcome, claims[cid].verdict), (version, e)


# --- the device axis ------------------------------------------------------------------------

COMMITTED = catalog.ROOT / "reports" / "claims"


def cuda_fixture(tmp_path, source="torch-2.11.0.json", **fields):
    """FIXTURE, not a measurement: a real committed CPU report whose device fields are changed to
    those of a CUDA run (no GPU was available to produce a real one)."""
    data = json.loads((COMMITTED / source).read_text(encoding="utf-8"))
    data.update({"device": "NVIDIA H200", "cuda": "13.0", "accelerator": "cuda"}, **fields)
    path = tmp_path / f"FIXTURE-cuda-{source}"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_a_cuda_report_is_its_own_column_after_the_cpu_columns(tmp_path):
    paths = [str(COMMITTED / "torch-2.10.0.json"), cuda_fixture(tmp_path), str(COMMITTED / "torch-2.11.0.json")]
    loaded = claim_reports.load_reports(paths)
    data = claim_reports.history_data(loaded)
    assert data["versions"] == ["2.10.0", "2.11.0", "2.11.0 cuda (H200)"], data["versions"]
    assert data["devices"] == ["cpu", "cpu", "cuda"]
    text = history_table.render_markdown(loaded, data)
    assert "| accelerator | cpu | cpu | cuda |" in text and "| 2.10.0 | 2.11.0 | 2.11.0 cuda (H200) |" in text
    assert "3 torch runs (2 on cpu, 1 on cuda;" in text


def test_an_old_report_without_the_accelerator_field_reads_it_from_its_device(tmp_path):
    path = cuda_fixture(tmp_path)
    data = json.loads(open(path, encoding="utf-8").read())
    del data["accelerator"]
    assert claim_reports.accelerator_of(data) == "cuda" and claim_reports.column_name(data) == "2.11.0 cuda (H200)"
    data["device"] = "cpu"
    assert claim_reports.accelerator_of(data) == "cpu" and claim_reports.column_name(data) == "2.11.0"


def test_a_cpu_and_a_cuda_cell_never_flip_and_each_device_has_its_history(tmp_path):
    paths = [str(COMMITTED / "torch-2.10.0.json"), str(COMMITTED / "torch-2.11.0.json"), cuda_fixture(tmp_path)]
    loaded = claim_reports.load_reports(paths)
    cid = "tensors.view-shares-storage"
    for r in loaded:   # planted: wrong on both CPU runs, right on the CUDA one
        r["claims"][cid] = entry("right", "right") if claim_reports.accelerator_of(r) == "cuda" else entry("wrong", "right")
    data = claim_reports.history_data(loaded)
    assert not [f for f in data["flips"] if f["claim"] == cid], data["flips"]
    row = next(r for r in data["rows"] if r["id"] == cid)
    assert row["history"] == "cpu: wrong on every release; cuda: holds on every release", row["history"]
    second = cuda_fixture(tmp_path, "torch-2.12.1.json")   # a later CUDA run that disagrees flips there
    loaded = claim_reports.load_reports(paths + [second])
    for r, value in zip(loaded, ["wrong", "wrong", "right", "wrong"]):
        r["claims"][cid] = entry(value, "right")
    flips = [f for f in claim_reports.history_data(loaded)["flips"] if f["claim"] == cid]
    assert flips == [{"claim": cid, "topic": "tensors", "from": "right", "to": "wrong", "since": "2.12.1 cuda (H200)",
                      "after": "2.11.0 cuda (H200)", "device": "cuda"}], flips


@pytest.mark.e2e  # runs git
def test_versions_ranges_are_checked_on_cuda_columns_by_their_release(tmp_path):
    from torchclaims import catalog as cat
    claims = cat.load()
    loaded = [claim_reports.rederive(r, claims) for r in claim_reports.load_reports(
        [str(COMMITTED / "torch-2.11.0.json"), cuda_fixture(tmp_path)])]
    assert claim_reports.versions_disagreements(claims, loaded) == []
    loaded[1]["claims"]["modules.whole-model-torch-load"]["material"] = "right"   # planted: <2.6 holds on 2.11
    problems = claim_reports.versions_disagreements(claims, loaded)
    assert problems == ["modules.whole-model-torch-load: versions '<2.6' says the material does not hold on "
                        "2.11.0 cuda (H200), measured right"], problems


# --- what a report's skips mean, decided again with today's rule -----------------------------

def _skipped_entry(reason, result="skipped", test_id="specs/test_numerics_amp.py::test_x"):
    e = entry("skipped", None, reason)
    e["tests"] = [{"id": test_id, "as_written": False, "status": "skipped", "result": result, "reason": reason}]
    return e


@pytest.mark.parametrize("reason, result, material", [
    ("needs CUDA: no GPU on this machine", "skipped", "not-measurable"),
    ("could not import 'torchvision': No module named 'torchvision'", "skipped", "not-measurable"),
    ("not measurable here on torch 2.0.1: the spec needs torch>=2.3 (x)", "not-applicable", "not-measurable"),
    ("not applicable on torch 1.13.1: needs torch>=2.0 (torch.compile appeared in 2.0)", "not-applicable",
     "not-applicable"),
    ("slow spec: skipped by the quick run (use --full or -m slow)", "skipped", "skipped"),
])
def test_a_reports_skips_are_read_again_by_their_reason(reason, result, material):
    claims = catalog.load()
    cid = "numerics.gradscaler-update-adjusts-scale"
    r = claim_reports.rederive(report("2.0.1", {cid: _skipped_entry(reason, result)}), claims, links={})
    assert r["claims"][cid]["material"] == material, r["claims"][cid]


def _head():
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=catalog.ROOT, capture_output=True,
                          text=True, check=True).stdout.strip()


@pytest.mark.e2e  # runs git
def test_a_claim_whose_spec_is_newer_than_the_report_is_not_measurable_there():
    """Today's links name a spec the report's commit did not have: the cell says so, never n/a."""
    claims = catalog.load()
    cid = "numerics.gradscaler-update-adjusts-scale"
    new_spec = "specs/test_numerics_amp.py::test_a_spec_written_after_this_report"
    old = report("2.0.1", {cid: _skipped_entry("needs CUDA: no GPU on this machine")})
    old["commit"] = _head() + "+dirty"
    links = {cid: [("specs/test_numerics_amp.py::test_x", False), (new_spec, False)]}
    e = claim_reports.rederive(old, claims, links=links)["claims"][cid]
    assert (e["material"], e["outcome"]) == ("not-measurable", "skipped"), e
    assert e["reason"] == f"{claim_reports.NEWER} ({new_spec})", e["reason"]


@pytest.mark.e2e  # runs git
def test_a_spec_that_existed_but_was_not_selected_is_not_called_newer():
    existing = next(name for name, _ in claim_reports.current_links()["tensors.view-needs-contiguous"])
    assert claim_reports.newer_specs(_head(), [], [(existing, False)]) == []
    assert claim_reports.newer_specs(None, [], [("specs/test_x.py::test_new", False)]) == [], "unknown commit: no claim"
    assert claim_reports.newer_specs("0" * 40, [], [("specs/test_x.py::test_new", False)]) == [], "a commit git lacks"


# --- compare: verdict changes apart from claims measured in one run only ----------------------

def _write(tmp_path, name, data):
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_compare_lists_a_claim_skipped_in_one_run_apart_and_it_does_not_decide_the_exit(reports, tmp_path, capsys):
    old = json.loads(open(reports[0], encoding="utf-8").read())   # 2.14.1: tensors.steady right
    new = copy.deepcopy(old)
    new["claims"]["tensors.steady"] = entry("skipped", "right", "compile spec: skipped by the quick run")
    new["claims"]["numerics.gpu"] = entry("not-measurable", None, "needs torchvision (pip install torchvision)")
    assert commands.main(["matrix", "--compare", reports[0], _write(tmp_path, "new.json", new)]) == 0
    out = capsys.readouterr().out
    assert "Verdict changes from torch 2.14.1 to 2.14.1: 0" in out, out
    assert "Measured in one run only (not verdict changes): 1" in out, out
    assert ("  tensors.steady: right on 2.14.1, skipped on 2.14.1 (compile spec: skipped by the quick run)"
            in out.splitlines()), out
    assert "numerics.gpu" not in out, "a claim measured in neither run is no difference"


def test_compare_with_a_real_change_and_a_skip_exits_1_for_the_change_only(reports, tmp_path, capsys):
    old = json.loads(open(reports[-1], encoding="utf-8").read())
    old["claims"]["modules.other"] = entry("right")
    new = json.loads(open(reports[0], encoding="utf-8").read())
    new["claims"]["tensors.steady"] = entry("wrong", "right", "truth spec t failed")
    new["claims"]["modules.other"] = entry("not-measurable", None, "needs CUDA: no GPU on this machine")
    assert commands.main(["matrix", "--compare", _write(tmp_path, "old.json", old), _write(tmp_path, "new.json", new)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert "UNEXPECTED  tensors.steady: right on 1.13.1 -> wrong on 2.14.1: truth spec t failed" in lines, lines
    assert ("  modules.other: right on 1.13.1, not measurable here on 2.14.1 (needs CUDA: no GPU on this machine)"
            in lines), lines
    assert lines[-1].startswith("1 verdict change, 1 unexpected; 1 claim measured in one run only"), lines[-1]


def test_compare_warns_when_the_two_runs_were_not_made_alike(reports, tmp_path, capsys):
    old = json.loads(open(reports[0], encoding="utf-8").read())
    old["argv"] = ["specs/", "-m", "not slow and not distributed"]
    new = copy.deepcopy(old)
    new["argv"], new["torchvision"] = ["specs/"], None
    old["torchvision"] = "0.29.1"
    commands.main(["matrix", "--compare", _write(tmp_path, "old.json", old), _write(tmp_path, "new.json", new)])
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("note: the two runs differ (specs run: quick + -m 'not slow and not distributed' / "
                            "quick run; torchvision: 0.29.1 / none)"), first


# --- where the matrix is written --------------------------------------------------------------

def _cli(*args):
    return commands.main(["matrix", *args])


def test_without_o_the_matrix_goes_to_stdout_and_nothing_is_written(reports, tmp_path, monkeypatch, capsys):
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    assert _cli(*reports) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("# The claim history"), captured.out[:80]
    assert "nothing written" in captured.err
    assert list(cwd.iterdir()) == [], "no reports/ folder created in the current folder"


def test_o_writes_path_md_and_path_html_and_refuses_to_overwrite_without_force(reports, tmp_path, capsys):
    stem = tmp_path / "history"
    assert _cli(*reports, "-o", str(stem)) == 0
    md, page = stem.with_suffix(".md"), stem.with_suffix(".html")
    assert md.read_text(encoding="utf-8").startswith("# The claim history") and page.exists()
    md.write_text("committed page", encoding="utf-8")
    capsys.readouterr()
    assert _cli(*reports, "-o", str(stem)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "exist: pass --force to replace them" in err, err
    assert md.read_text(encoding="utf-8") == "committed page", "refused, so the file is as it was"
    assert _cli(*reports, "-o", str(stem), "--force") == 0
    assert md.read_text(encoding="utf-8").startswith("# The claim history")
    assert md.stat().st_mode & 0o777 == 0o666 & ~files._umask(), "the page is readable as any new file is"


def test_o_naming_an_existing_folder_writes_matrix_files_inside_it(reports, tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    assert _cli(*reports, "-o", str(folder)) == 0
    assert sorted(p.name for p in folder.iterdir()) == ["matrix.html", "matrix.md"]
    assert not (tmp_path / "out.md").exists(), "nothing written next to the folder"


def test_o_with_a_suffix_or_a_missing_folder(reports, tmp_path, capsys):
    assert _cli(*reports, "-o", str(tmp_path / "m.md")) == 0
    assert (tmp_path / "m.md").exists() and (tmp_path / "m.html").exists()
    assert _cli(*reports, "-o", str(tmp_path / "no" / "such" / "m")) == 2
    assert "no folder" in capsys.readouterr().err and not (tmp_path / "no").exists()


def test_a_write_that_fails_halfway_leaves_the_old_file_and_no_temporary(reports, tmp_path, monkeypatch, capsys):
    stem = tmp_path / "history"
    for suffix in (".md", ".html"):
        stem.with_suffix(suffix).write_text("old", encoding="utf-8")

    def crash(src, dst):
        raise OSError("disk full (planted)")
    monkeypatch.setattr(os, "replace", crash)
    assert commands.main(["matrix", *reports, "-o", str(stem), "--force"]) == 2
    assert "planted" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(("history", ".history"))) == [
        "history.html", "history.md"], "the temporary file is removed"
    assert stem.with_suffix(".md").read_text(encoding="utf-8") == "old"


def test_results_of_a_spec_that_no_longer_checks_the_claim_do_not_count():
    """Planted: a report ran an as-written spec that a label audit has since removed (the claim is
    confirmed today); its failure must not make the material wrong there."""
    claims = catalog.load()
    cid = next(c.id for c in claims.values() if c.verdict == "confirmed")
    tests = [{"id": "specs/t.py::test_truth", "as_written": False, "status": "passed", "result": "held", "reason": ""},
             {"id": "specs/t.py::test_as_written", "as_written": True, "status": "xfailed", "result": "failed",
              "reason": ""}]
    stale = dict(entry("wrong", "right"), tests=tests)
    today = {cid: [("specs/t.py::test_truth", False)]}
    e = claim_reports.rederive(report("2.4.1", {cid: copy.deepcopy(stale)}), claims, links=today)["claims"][cid]
    assert e["material"] == "right", e
    e = claim_reports.rederive(report("2.4.1", {cid: copy.deepcopy(stale)}), claims, links={})["claims"][cid]
    assert e["material"] == "wrong", "with no links known every result counts"


@pytest.mark.parametrize("lang, warning", [("C.UTF-8", "is an interrupted run's partial report"),
                                           ("zh_CN.UTF-8", "是一次中断运行留下的不完整报告")])
def test_reading_a_partial_report_warns_that_it_is_incomplete(reports, tmp_path, capsys, monkeypatch, lang, warning):
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", lang)
    partial = tmp_path / "claims.json.partial"
    data = json.loads(open(reports[0], encoding="utf-8").read())
    data["interrupted"] = True
    partial.write_text(json.dumps(data), encoding="utf-8")
    claim_reports.load_reports([reports[1]])
    assert warning not in capsys.readouterr().err, "a complete report warned"
    claim_reports.load_reports([str(partial)])
    assert warning in capsys.readouterr().err


def test_the_chinese_page_is_chinese_throughout_and_its_switch_has_both_languages(reports):
    """Issue 32: the page's 中文 switch translated only the verdicts, the count and the details."""
    loaded = plant(reports, "modules.load", ["right", "right", "right", "wrong", "wrong"])
    data = claim_reports.history_data(loaded)
    page = history_page.render_html(loaded, data, lang="zh")
    assert "<html lang='zh'>" in page and "<option value='zh' selected>" in page
    assert ">论断的历史：资料在每个 torch 版本上说对了什么</h1>" in page
    zh_block = page.split("<div class='l-zh'>")[1].split("</div>")[0]
    assert "次 torch 运行" in zh_block and "条" in zh_block, zh_block   # the summary, visible
    assert "<div class='l-en' hidden>" in page, "the English summary is there for the switch, hidden"
    assert "2.5.1 及以前成立，自 2.6.0 起错误" in page, "the history built in Chinese grammar"
    assert "自 2.6.0 起由成立变为错误" in page, "the flip said in Chinese"
    for label in ("只看有变化的论断", "目录中的判定", "含有这种格子", "全部", "语言"):
        assert f"data-zh='{label}'" in page, label
    english = history_page.render_html(loaded, data)
    assert "<html lang='en'>" in english and "<div class='l-zh' hidden>" in english


def test_the_chinese_markdown_is_chinese(reports):
    loaded = plant(reports, "modules.load", ["right", "right", "right", "wrong", "wrong"])
    text = history_table.render_markdown(loaded, claim_reports.history_data(loaded), lang="zh")
    assert text.startswith("# 论断的历史") and "## 结论翻转" in text and "## 总表" in text
    assert "| 论断 | 判定 | 历史 |" in text and "2.5.1 及以前成立，自 2.6.0 起错误" in text
    assert "holds" not in text and "The table" not in text
