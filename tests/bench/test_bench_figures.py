"""Figure claims: a GPU's speed, memory or latency figure that a benchmark measures is scored by the
benchmark report alone, never by a spec; ``check`` refuses a spec linked to one."""
import io
import textwrap

from torchclaims import catalog, catalog_view, links, lint, outcomes, reports as claim_reports, scoreboard
from torchclaims.bench import rows as bench_rows, verdicts
from torchclaims.history import table as history_table

from .helpers import planted_gpu_results

RESNET = [f"compile.resnet50-{row}-{what}" for what in ("throughput", "memory", "startup")
          for row in ("eager", "compile-default", "max-autotune")]
OLD_SPEC = "specs/test_compile_resnet_table.py::test_resnet50_table_configurations_match_eager_on_cuda[default]"


def _held_everywhere(ids) -> outcomes.Results:
    """The results of a run on a CUDA machine of the tree before the fix: the ResNet-50 equality spec,
    linked to the nine figure claims, held (FIXTURE: what that run would report)."""
    results = outcomes.Results()
    for cid in ids:
        results.by_claim[cid] = {OLD_SPEC: outcomes.TestResult(OLD_SPEC, False, "passed", "held")}
    return results


def test_the_nine_resnet50_figures_and_the_amp_figures_are_figure_claims():
    figures = links.figure_claims(catalog.load())
    assert set(RESNET) | {"numerics.amp-speedup-rtx3090", "numerics.amp-memory-rtx3090"} <= figures, sorted(figures)
    assert "tensors.empty-faster-than-zeros" not in figures, "a figure a CPU spec decides (pages, bytes) is no figure claim"


def test_a_cuda_run_scores_no_figure_claim_from_a_spec_that_held():
    """On a GPU the old equality spec holds; its result must not make a figure 'right'."""
    claims = catalog.load()
    summary = {o.claim.id: o for o in outcomes.summarize(claims, _held_everywhere(RESNET), "2.14.1")}
    for cid in RESNET:
        o = summary[cid]
        assert (o.material, o.outcome) == ("measured", "skipped"), f"{cid}: {o.material} / {o.outcome} ({o.reason})"
        assert "benchmark report" in o.reason
    # the planted fault the rule guards against: without it the same run scores all nine reproduced
    old = [outcomes.classify(claims[cid], list(_held_everywhere([cid]).by_claim[cid].values()), "2.14.1",
                             figure=False) for cid in RESNET]
    assert {(o.material, o.outcome) for o in old} == {("right", "reproduced")}


def test_a_claims_report_from_a_cuda_machine_shows_measured_in_the_matrix():
    """A committed report with device cuda whose equality spec held: the matrix shows ▣ and the report's
    verdict, never ✓."""
    claims = catalog.load()
    summary = outcomes.summarize(claims, _held_everywhere(RESNET), "2.14.1")
    report = {"schema_version": claim_reports.SCHEMA_VERSION, "torch": "2.14.1+cu130", "python": "3.11.7", "platform": "p",
              "cuda": "13.0", "device": "NVIDIA H200", "accelerator": "cuda", "argv": ["--full"], "commit": None,
              "claims": {o.claim.id: {"topic": o.claim.topic, "verdict": o.claim.verdict, "material": "right",
                                      "expected": None, "outcome": "reproduced", "reason": "",
                                      "tests": [{"id": t.nodeid, "as_written": False, "status": "passed",
                                                 "result": "held", "reason": ""} for t in o.tests]}
                         for o in summary if o.claim.id in RESNET}}
    claim_reports.rederive(report, claims, links={})        # {}: keep every result, as a report of that tree would
    data = claim_reports.history_data([report])
    for row in data["rows"]:
        assert row["cells"][0]["material"] == "measured", row
        assert row["history"].startswith("measured by the benchmark report"), row["history"]
        assert row["history_zh"].startswith("由基准测试报告测量"), row["history_zh"]
    text = history_table.render_markdown([report], data, claims)
    assert "| ▣ |" in text and "| ✓ |" not in text


def test_only_a_row_measured_on_comparable_hardware_gives_a_figure_claim_a_verdict():
    """A planted GPU run (H200): the claims with a judged row get the report's verdict, those whose rows are
    context (absolute images/s and GB of an A100) get none."""
    rows = bench_rows.build_rows(planted_gpu_results(), {})
    found = verdicts.claim_verdicts(rows)
    judged = {r.claim_id for r in rows if r.verdict is not None}
    assert found.keys() == judged and judged, (sorted(found), sorted(judged))
    assert "compile.resnet50-eager-throughput" not in found, "an A100's absolute images/s has no verdict on an H200"
    for said in found.values():
        assert said.split(" (")[0] in rule_words(), said
    zh = verdicts.claim_verdicts(rows, "zh")
    assert zh.keys() == found.keys() and all("NVIDIA H200" in v for v in zh.values())


def rule_words():
    from torchclaims.bench.rule import WORDS
    return WORDS


class _Terminal:
    """What scoreboard.render needs of pytest's terminal reporter."""
    hasmarkup = False

    def __init__(self):
        self.out = io.StringIO()
        self._tw = type("TW", (), {"fullwidth": 200})()

    def write(self, text):
        self.out.write(text)


def test_the_scoreboard_shows_figure_claims_as_measured_by_the_report_with_its_verdict(monkeypatch):
    claims = catalog.load()
    summary = outcomes.summarize(claims, _held_everywhere(RESNET), "2.14.1")
    tr = _Terminal()
    scoreboard.render(tr, summary, claims, verbosity=1, torch_version="2.14.1", figure_verdicts=claim_reports.figure_verdicts)
    out = tr.out.getvalue()
    line = next(line for line in out.splitlines() if "compile.resnet50-eager-memory" in line)
    assert "measured by the benchmark report" in line and "✓" not in line, line
    assert "none has a verdict from comparable hardware yet" in out      # the committed results are a CPU run's
    planted = {"compile.resnet50-compile-default-throughput": "weaker (planted reason)"}
    tr = _Terminal()
    scoreboard.render(tr, summary, claims, torch_version="2.14.1", figure_verdicts=lambda ids, lang: planted)
    out = tr.out.getvalue()
    assert "(1 with a verdict of" in out and "compile.resnet50-compile-default-throughput  weaker (planted reason)" in out


def _project(tmp_path, spec: str):
    (tmp_path / "specs").mkdir()
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "specs" / "test_x.py").write_text(textwrap.dedent(spec), encoding="utf-8")
    (tmp_path / "benchmarks" / "bench_x.py").write_text(
        'import pytest\n@pytest.mark.claim("devices.fast")\ndef test_b(benchmark):\n    pass\n', encoding="utf-8")
    return tmp_path / "specs", tmp_path / "benchmarks"


def _gpu_figure():
    return catalog.Claim(id="devices.fast", source=("000_9a03721c87560f23.txt §1",), topic="devices", says="s",
                         says_zh="说", verdict="gpu-only", truth="Needs CUDA: a GPU's speed figure.",
                         truth_zh="需要 CUDA：GPU 的速度数字。")


LINKED = '''
import pytest, torch
@pytest.mark.gpu
@pytest.mark.claim("devices.fast")
def test_runs_on_cuda():
    assert torch.ones(1, device="cuda").sum().item() == 1
'''


def test_check_refuses_a_figure_claim_linked_to_a_spec(tmp_path):
    specs, bench = _project(tmp_path, LINKED)
    kinds = [f.kind for f in lint.label_findings({"devices.fast": _gpu_figure()}, specs, bench)]
    assert kinds == ["figure-claim-linked-to-spec"], kinds
    (specs / "test_x.py").write_text(LINKED.replace("devices.fast", "devices.other"), encoding="utf-8")
    assert lint.label_findings({"devices.fast": _gpu_figure()}, specs, bench) == []


def test_check_refuses_the_old_resnet50_links(tmp_path):
    """The planted violation: the spec file as it was, linking its equality check to the nine figures."""
    source = (catalog.ROOT / "specs" / "test_compile_resnet_table.py").read_text(encoding="utf-8")
    old = "".join(f'@pytest.mark.claim("{cid}")\n' for cid in RESNET)
    planted = source.replace('@pytest.mark.claim("compile.mode-names")', old.rstrip("\n"), 1)
    assert planted != source
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "test_compile_resnet_table.py").write_text(planted, encoding="utf-8")
    found = [f for f in lint.label_findings(catalog.load(), specs, catalog.ROOT / "benchmarks")
             if f.kind == "figure-claim-linked-to-spec"]
    assert sorted(f.message.split()[0] for f in found) == sorted(RESNET), found
    today = [f for f in lint.label_findings(catalog.load()) if f.kind == "figure-claim-linked-to-spec"]
    assert today == [], today


def test_figure_claims_need_a_benchmark_not_a_truth_spec():
    claims = catalog.load()
    problems = catalog_view.link_problems(claims, links.spec_links(catalog_view.SPECS_DIR, catalog.ROOT))
    assert not [p for p in problems if p.split()[0] in RESNET], problems
    without = {cid: c for cid, c in claims.items() if cid in RESNET}
    assert catalog_view.link_problems(without, {}) == [], "a figure claim is measured by its benchmark, it needs no spec"
    # planted: the same claims without a benchmark are ordinary gpu-only claims, which need a truth spec
    bare = {cid: catalog.Claim(**{**c.__dict__, "id": cid.replace("resnet50", "planted")}) for cid, c in without.items()}
    assert len(catalog_view.link_problems({c.id: c for c in bare.values()}, {})) == 9


def test_the_claims_report_records_a_figure_claim_as_measured_by_the_benchmark_report(monkeypatch):
    monkeypatch.setattr(claim_reports, "environment", lambda: {   # FIXTURE: a CUDA machine's, without asking it
        "torch": "2.14.1+cu130", "torchvision": None, "python": "3.11.7", "platform": "p", "machine": "x86_64",
        "cuda": "13.0", "device": "NVIDIA H200", "accelerator": "cuda"})
    monkeypatch.setattr(claim_reports, "specs_commit", lambda: None)
    claims = catalog.load()
    summary = outcomes.summarize(claims, _held_everywhere(RESNET), "2.14.1")
    report = claim_reports.json_report(summary, claims, argv=["specs/", "--full"])
    claim_reports.validate_report(report)
    for cid in RESNET:
        entry = report["claims"][cid]
        assert (entry["material"], entry["outcome"]) == ("measured", "skipped"), entry
        assert entry["reason"].startswith("measured by the benchmark report"), entry["reason"]
    planted = {"compile.resnet50-compile-default-throughput": "weaker (planted reason)"}
    summary = outcomes.summarize(claims, _held_everywhere(RESNET), "2.14.1", verdicts=lambda ids: planted)
    report = claim_reports.json_report(summary, claims, argv=[])
    assert report["claims"]["compile.resnet50-compile-default-throughput"]["reason"].endswith(": weaker (planted reason)")
    assert report["claims"]["compile.resnet50-eager-memory"]["material"] == "measured"


def test_a_committed_gpu_run_gives_the_scoreboard_its_verdicts(tmp_path):
    """A planted GPU results file committed under reports/bench/gpu/: the figure claims with a row judged on
    the H200 get its verdict, through the same path the scoreboard and the matrix take."""
    import json
    (tmp_path / "reports" / "bench" / "gpu").mkdir(parents=True)
    data = planted_gpu_results()
    (tmp_path / "reports" / "bench" / "gpu" / "gpu.json").write_text(json.dumps(data), encoding="utf-8")
    found = verdicts.committed_verdicts(RESNET, root=tmp_path)
    judged = {r.claim_id for r in bench_rows.build_rows(data, {}) if r.verdict is not None and r.claim_id in RESNET}
    assert found.keys() == judged and "compile.resnet50-compile-default-throughput" in found, sorted(found)
    assert found["compile.resnet50-compile-default-throughput"].startswith("weaker (on NVIDIA H200")
    quick = bench_rows.build_rows(data, {}, judged_only=True)
    assert quick and all(r.verdict is not None for r in quick)
