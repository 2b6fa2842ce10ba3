"""Comparable hardware: a figure for other hardware is context; a GPU run judges the figures of its class."""
import pytest

from torchclaims.bench import markdown, rows as bench_rows, rule

from .helpers import CatalogClaim, pair, planted_gpu_results, results_file


def test_a_figure_for_other_hardware_is_context_never_agrees(tmp_path):
    """A CPU speed-up equal to the A100's 1.744x must still not be called agreement."""
    context = pair(1.744, base=1.744, cand=1.0, claim="compile.resnet50-compile-default-throughput",
                    hardware="A100", quantity="ResNet-50 planted context speed-up")
    opposite = pair(1.22, base=1.0, cand=1.0 / 0.93, claim="data.workers", quantity="planted opposite row")
    data = results_file([context, opposite])
    rows = bench_rows.build_rows(data, {})
    by_quantity = {r.entry["quantity"]: r for r in rows}
    ctx = by_quantity["ResNet-50 planted context speed-up"]
    assert ctx.verdict is None and "A100" in ctx.why_context(), "other hardware must be context"
    assert rule.judge(context, ctx.figure).word == "agrees", "the planted figure would agree if it were judged"
    assert by_quantity["planted opposite row"].verdict.word == "contradicts"

    text = markdown.render_markdown(data, tmp_path / "r.json", None, claims={})
    verdicts, context_section = text.split("## Context: figures for other hardware")
    assert "planted opposite row" in verdicts and "**contradicts**" in verdicts
    assert "ResNet-50 planted context speed-up" not in verdicts
    context_table = context_section.split("## All benchmarks")[0]
    assert "ResNet-50 planted context speed-up" in context_table
    assert "agrees" not in context_table, "a context row must carry no verdict"
    assert "pytest benchmarks/ -m gpu" in context_section, "the report gives the command to rerun on a GPU"
    assert "python -m torchclaims show data.workers" in text
    assert "python -m torchclaims show compile.resnet50-compile-default-throughput" in text


def test_the_device_named_by_the_material_makes_the_row_a_verdict():
    row = pair(1.744, base=1.744, cand=1.0, hardware="A100", device="NVIDIA A100-SXM4-80GB")
    [judged] = bench_rows.build_rows(results_file([row], cuda="NVIDIA A100-SXM4-80GB"), {})
    assert judged.verdict is not None and judged.verdict.word == "agrees", judged
    assert judged.verdict.why.startswith("on NVIDIA A100-SXM4-80GB, the material's A100"), judged.verdict.why


@pytest.mark.parametrize("device, judged", [
    ("NVIDIA H200", True), ("NVIDIA H100 80GB HBM3", True),        # the A100's vendor and class
    ("NVIDIA GeForce RTX 4090", False), ("Tesla T4", False), ("AMD Instinct MI300X", False)])
def test_a_relative_figure_is_judged_on_comparable_hardware_only(device, judged):
    row = pair(1.744, base=1.744, cand=1.0, hardware="A100", device=device)
    [r] = bench_rows.build_rows(results_file([row], cuda=device), {})
    assert (r.verdict is not None) == judged, f"{device}: verdict {r.verdict}, context {r.why_context()!r}"
    if judged:
        assert f"on {device} against the material's A100 (both NVIDIA data-centre training GPUs)" in r.verdict.why
    else:
        assert "not comparable hardware" in r.why_context() and device in r.why_context()


def test_an_absolute_figure_is_judged_only_on_the_hardware_it_names():
    row = dict(claim="c.x", quantity="images/s", unit="images/s", material=1250.0, samples=[3000.0 + i for i in range(21)],
               hardware="A100", same_hardware=True, device="NVIDIA H200")
    [r] = bench_rows.build_rows(results_file([row], cuda="NVIDIA H200"), {})
    assert r.verdict is None and "absolute figure of the A100" in r.why_context(), r
    [r] = bench_rows.build_rows(results_file([{**row, "device": "NVIDIA A100-PCIE-40GB"}], cuda="NVIDIA A100-PCIE-40GB"), {})
    assert r.verdict is not None and r.verdict.word == "higher"


def test_a_row_measured_on_the_cpu_stays_context_in_results_from_a_cuda_machine():
    """The CPU counterpart of the A100 table, run on a GPU machine, is still a CPU measurement."""
    row = pair(1.744, base=1.744, cand=1.0, hardware="A100")
    [r] = bench_rows.build_rows(results_file([row], cuda="NVIDIA H200"), {})
    assert r.verdict is None and "measured on this CPU" in r.why_context()


def test_a_gpu_only_claim_without_cuda_is_context():
    row = pair(1.5, claim="numerics.amp")
    [r] = bench_rows.build_rows(results_file([row]), {"numerics.amp": CatalogClaim("numerics.amp", "gpu-only")})
    assert r.verdict is None and "gpu-only" in r.why_context()


def test_a_gpu_run_judges_the_a100_table_on_a_comparable_gpu_and_names_the_hardware(tmp_path):
    data = planted_gpu_results()
    rows = {r.entry["quantity"]: r for r in bench_rows.build_rows(data, {})}
    speedup = rows["ResNet-50 eager/compiled forward time (speed-up), mode=default"]
    assert speedup.verdict is not None and speedup.verdict.word == "weaker", speedup
    assert "on NVIDIA H200 against the material's A100" in speedup.verdict.why
    ratio = rows["ResNet-50 peak allocated memory of one forward, compiled (default) / eager"]
    assert ratio.verdict is not None and ratio.verdict.word == "agrees", ratio   # 1.07 against 19.5/18.2 = 1.071
    assert rows["ResNet-50 cold compile latency, mode=default"].verdict.word == "inconclusive", "one cold compile"
    for absolute in ("ResNet-50 eager images/s", "ResNet-50 images/s, mode=default", "ResNet-50 eager peak allocated memory of one forward"):
        assert rows[absolute].verdict is None and "absolute figure of the A100" in rows[absolute].why_context()
    assert rows["planted AMP speed-up"].verdict is None and "RTX 3090" in rows["planted AMP speed-up"].why_context()
    bounded = rows["ResNet-50 eager/compiled forward time (speed-up), mode=max-autotune"]
    assert bounded.verdict.word == "not measured" and "stopped after 120 s" in bounded.entry["note"]

    text = markdown.render_markdown(data, tmp_path / "gpu.json", None, claims={})
    assert "| CUDA | NVIDIA H200 |" in text
    verdicts = text.split("## Verdicts")[1].split("## Context")[0]
    assert "measured on this machine (its CPU and its NVIDIA H200)" in verdicts
    assert "ResNet-50 eager/compiled forward time (speed-up), mode=default" in verdicts
    by_claim = text.split("claim by claim")[1].split("## Verdicts")[0]
    assert "(NVIDIA H200)" in by_claim and "**weaker**" in by_claim
    assert "ResNet-50 on the NVIDIA H200: the material's A100 table" in text


def test_the_same_planted_gpu_run_on_a_consumer_gpu_judges_the_rtx_figure_instead():
    data = planted_gpu_results(device="NVIDIA GeForce RTX 4090")
    rows = {r.entry["quantity"]: r for r in bench_rows.build_rows(data, {})}
    assert rows["planted AMP speed-up"].verdict is not None
    assert rows["ResNet-50 eager/compiled forward time (speed-up), mode=default"].verdict is None

