"""The committed claim history (reports/claims/) against the catalog's ``versions`` ranges, its
flip boundaries and what its unmeasured cells say."""
import ast
import dataclasses
import re

import pytest

from torchclaims import catalog, reports as claim_reports
from torchclaims.history import page as history_page, table as history_table
from torchclaims.versions import in_range, parse

REPORTS = sorted(str(p) for p in (catalog.ROOT / "reports" / "claims").glob("torch-*.json"))


@pytest.fixture(scope="module")
def history():
    if not REPORTS:
        pytest.fail("no committed claim reports in reports/claims/: run nox -s claims")
    claims = catalog.load()
    return [claim_reports.rederive(r, claims) for r in claim_reports.load_reports(REPORTS)]


@pytest.mark.e2e  # runs git and nox
def test_the_history_covers_every_minor_release_from_1_13_to_2_15(history):
    """Every minor release 1.13 and 2.0 to 2.15 has a report (the releases noxfile.py measures);
    several patches of one minor may, but one release on one device has one report."""
    minors = sorted({".".join(r["torch"].split("+")[0].split(".")[:2]) for r in history},
                    key=lambda v: tuple(map(int, v.split("."))))
    expected = ["1.13"] + [f"2.{n}" for n in range(16)]
    assert minors == expected, f"missing: {sorted(set(expected) - set(minors))}"
    columns = [claim_reports.column_name(r) for r in history]
    assert len(columns) == len(set(columns)), f"two reports for one release and device: {columns}"


def test_every_flip_names_the_first_patch_release_that_has_the_change(history):
    """A flip between two minor releases was placed by measuring the first patch (X.Y.0) of the
    later one: "since" is an X.Y.0, or a later patch whose minor's earlier patch was measured too."""
    data = claim_reports.history_data(history)
    assert data["flips"], "the history has flips"
    for flip in data["flips"]:
        since = parse(flip["since"].split()[0])
        after = parse(flip["after"].split()[0])
        same_minor = (since.major, since.minor) == (after.major, after.minor)
        assert since.micro == 0 or same_minor, (
            f"{flip['claim']}: flips 'since {flip['since']}' after {flip['after']}, but "
            f"{since.major}.{since.minor}.0 was not measured: add it to noxfile.py's TORCH and run nox")


# What a not-applicable reason must say: the release lacks the API (it appeared later); never a
# limit of the runner, which is "not measurable here".
NOT_APPLICABLE = re.compile(r"not applicable on torch (?P<torch>\S+): needs torch(?P<range>\S+) \((?P<why>.+)\)$")
MISSING = re.compile(r"\b(appeared in|came in|added in|does not exist|no such)\b|\bfrom \d+\.\d+ on\b")
RUNNER = re.compile(r"CUDA|GPU|\bCPU\b|Python 3|weights_only|loader|stand in|refuses", re.I)


def test_every_not_applicable_cell_names_what_that_release_lacks(history):
    """A test reads each n/a reason: the API it names appeared after that release."""
    data = claim_reports.history_data(history)
    cells = [(row["id"], column, cell["reason"]) for row in data["rows"]
             for column, cell in zip(data["versions"], row["cells"]) if cell["material"] == "not-applicable"]
    assert cells, "the history has not-applicable cells (torch.compile on 1.13.1)"
    for cid, column, reason in cells:
        found = NOT_APPLICABLE.match(reason)
        assert found, f"{cid} on {column}: the n/a reason {reason!r} does not say which torch it needs"
        assert not in_range(found["range"], found["torch"]), f"{cid} on {column}: {found['torch']} is in {found['range']}"
        assert MISSING.search(found["why"]) and not RUNNER.search(found["why"]), (
            f"{cid} on {column}: {found['why']!r} should name an API the release lacks; a limit of the "
            "runner is not measurable here (measurable_on / require_measurable)")


@pytest.mark.parametrize("release", ["1.13.1", "2.0.1"])
def test_the_first_releases_show_their_not_measurable_cells_with_reasons(history, release):
    """torch.compile exists on 2.0 but refuses Python 3.11; GradScaler exists but needs CUDA."""
    report = next(r for r in history if r["torch"].split("+")[0] == release)
    cells = {cid: c for cid, c in report["claims"].items() if c["material"] == "not-measurable"}
    assert cells and all(c["reason"] for c in cells.values()), cells
    scaler = cells.get("numerics.gradscaler-update-adjusts-scale", {}).get("reason", "")
    assert "needs torch>=2.3" in scaler and "CUDA" in scaler, scaler
    compile_cells = {cid: c for cid, c in report["claims"].items() if cid.startswith("compile.")
                     and c["material"] in ("not-applicable", "not-measurable")}
    kind = "not-applicable" if release == "1.13.1" else "not-measurable"
    assert compile_cells and all(c["material"] == kind for c in compile_cells.values()), {
        cid: c["material"] for cid, c in compile_cells.items()}


def test_no_committed_cell_is_broken_or_contradicts(history):
    """Every cell is a verdict: a spec that broke on a release was fixed and that release measured again."""
    bad = [(r["torch"], cid) for r in history for cid, c in r["claims"].items()
           if c.get("material") in ("broken", "contradiction")]
    assert not bad, bad


def test_every_versions_range_agrees_with_the_measured_cells(history):
    problems = claim_reports.versions_disagreements(catalog.load(), history)
    assert not problems, "\n".join(problems)


def test_a_planted_wrong_range_is_caught(history):
    claims = catalog.load()
    cid = "modules.whole-model-torch-load"
    assert claims[cid].versions == "<2.6"
    claims[cid] = dataclasses.replace(claims[cid], versions="<2.9")
    problems = claim_reports.versions_disagreements(claims, history)
    assert any(p.startswith(cid) and "holds on 2.6.0, measured wrong" in p for p in problems), problems


def test_a_flip_without_a_range_is_caught(history):
    claims = catalog.load()
    cid = "autograd.zero-grad-sets-none"
    claims[cid] = dataclasses.replace(claims[cid], versions=None)
    problems = claim_reports.versions_disagreements(claims, history)
    assert f"{cid}: flips to wrong on 2.0.0 but has no versions range" in problems, problems


def test_a_flip_placed_at_a_later_patch_is_caught(history):
    """Planted: the 2.0.0 report left out, so the zero_grad flip reads "since 2.0.1"."""
    without = [r for r in history if r["torch"].split("+")[0] != "2.0.0"]
    with pytest.raises(AssertionError, match="2.0.0 was not measured"):
        test_every_flip_names_the_first_patch_release_that_has_the_change(without)


def test_a_runner_limit_written_as_not_applicable_is_caught(history):
    """Planted: a compile cell of 2.0.1 read as n/a with the reason of a runner limit."""
    planted = [dict(r, claims=dict(r["claims"])) for r in history]
    r = next(r for r in planted if r["torch"].startswith("2.0.1"))
    r["claims"]["compile.mode-names"] = dict(r["claims"]["compile.mode-names"], material="not-applicable", reason=(
        "not applicable on torch 2.0.1+cu117: needs torch>=2.1 (torch.compile refuses Python 3.11 before 2.1)"))
    with pytest.raises(AssertionError, match="a limit of the runner is not measurable here"):
        test_every_not_applicable_cell_names_what_that_release_lacks(planted)


@pytest.mark.e2e  # runs git and nox
def test_the_committed_matrix_is_rendered_from_the_committed_reports(history, tmp_path):
    commits = {r["commit"].split("+")[0] for r in history if r.get("commit")}
    if any(claim_reports._source_at(c, "noxfile.py") is None for c in commits):
        pytest.skip("the reports' commits are not in this clone (a shallow clone?), so which specs are newer than "
                    "a report cannot be told: git fetch --unshallow")
    claims = catalog.load()
    data = claim_reports.history_data(history)
    committed = (catalog.ROOT / "reports" / "matrix.md").read_text(encoding="utf-8")
    assert committed == history_table.render_markdown(history, data, claims), (
        "reports/matrix.md is stale: run python -m torchclaims matrix reports/claims/torch-*.json -o reports/matrix --force")
    for name, lang in (("matrix.html", "en"), ("matrix.zh-CN.html", "zh")):   # the pages, both languages inside
        page = (catalog.ROOT / "reports" / name).read_text(encoding="utf-8")
        assert page == history_page.render_html(history, data, claims, lang), f"reports/{name} is stale"
    committed_zh = (catalog.ROOT / "reports" / "matrix.zh-CN.md").read_text(encoding="utf-8")
    assert committed_zh == history_table.render_markdown(history, data, claims, lang="zh"), (
        "reports/matrix.zh-CN.md is stale: run python -m torchclaims matrix reports/claims/torch-*.json --lang zh "
        "-o reports/matrix.zh-CN --force")


def _nox_releases() -> list[str]:
    tree = ast.parse((catalog.ROOT / "noxfile.py").read_text(encoding="utf-8"))
    node = next(n for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "TORCH")
    return list(ast.literal_eval(node.value))


def test_nox_the_workflow_and_the_committed_cpu_reports_name_the_same_releases(history):
    cpu = sorted((r["torch"].split("+")[0] for r in history if claim_reports.accelerator_of(r) == "cpu"), key=parse)
    workflow = (catalog.ROOT / ".github" / "workflows" / "claims.yml").read_text(encoding="utf-8")
    listed = re.findall(r'"(\d+\.\d+\.\d+)"', re.search(r"torch: \[(.*?)\]", workflow, re.S).group(1))
    assert _nox_releases() == cpu == listed, (_nox_releases(), cpu, listed)

