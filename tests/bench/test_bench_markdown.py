"""The rendered report: every row's interval, spread and rounds, the load, the claims whose benchmark did not run."""
from torchclaims import catalog, links
from torchclaims.bench import markdown, rows as bench_rows

from .helpers import CatalogClaim, pair, results_file


def test_every_row_states_its_interval_spread_and_rounds(tmp_path):
    rows = [pair(2.0, quantity="timed"),
            dict(claim="c.bytes", quantity="counted", unit="%", stat="saving", material=40.0, measured=60.0, exact=True)]
    text = markdown.render_markdown(results_file(rows), tmp_path / "r.json", None, claims={})
    timed = next(line for line in text.splitlines() if line.startswith("| timed"))
    cells = [c.strip() for c in timed.split("|")[1:-1]]
    assert cells[3].startswith("[") and cells[4].endswith("%") and cells[5] == "21", cells
    counted = next(line for line in text.splitlines() if line.startswith("| counted"))
    assert "| exact |" in counted and "1 (exact)" in counted


def test_the_load_is_reported_and_a_busy_machine_is_warned_about(tmp_path):
    busy = markdown.render_markdown(results_file([pair(2.0)], load=(1.7, 2.0, 2.9)), tmp_path / "r.json", None, claims={})
    assert "machine was busy" in busy and "1.70" in busy and "†" in busy.split("## Summary")[1]
    quiet = markdown.render_markdown(results_file([pair(2.0)], load=(0.1, 0.2, 0.3)), tmp_path / "r.json", None, claims={})
    assert "busy" not in quiet and "| load average (1, 5, 15 min) before the run | 0.10, 0.20, 0.30 |" in quiet
    unknown = results_file([pair(2.0)])
    del unknown["machine_info"]["torch"]["load_before"], unknown["machine_info"]["torch"]["load_after"]
    assert "load average was not recorded" in markdown.render_markdown(unknown, tmp_path / "r.json", None, claims={})


def test_other_processes_competing_during_the_run_are_warned_about_even_at_low_load(tmp_path):
    data = results_file([pair(2.0)], load=(0.1, 0.2, 0.3))
    data["machine_info"]["torch"].update(others_cpu_cores=0.8, load_at_end=[1.2, 0.9, 0.5], settle_s=65.0)
    text = markdown.render_markdown(data, tmp_path / "r.json", None, claims={})
    assert "other processes used the CPU during the run" in text and "0.80 cores" in text
    assert "| load average (1, 5, 15 min) at the end of the run (still holding the run's own process) | 1.20" in text
    assert "65 s after the end" in text
    data["machine_info"]["torch"]["others_cpu_cores"] = 0.03
    assert "other processes used the CPU" not in markdown.render_markdown(data, tmp_path / "r.json", None, claims={})


def test_a_row_is_marked_by_the_cpu_others_took_during_it_not_by_the_runs_own_load(tmp_path):
    data = results_file([pair(2.0)], load=(0.1, 0.2, 0.3))
    extra = data["benchmarks"][0]["extra_info"]
    extra.update(load_before=1.4, load_after=1.5, others_cpu_cores=0.02)  # the run's own load only
    assert not any(r.busy for r in bench_rows.build_rows(data))
    extra["others_cpu_cores"] = 0.6
    assert all(r.busy for r in bench_rows.build_rows(data))
    del extra["others_cpu_cores"]  # older results: the load average is all there is
    assert all(r.busy for r in bench_rows.build_rows(data))


def test_a_claim_whose_benchmark_did_not_run_is_listed_with_the_benchmark_its_marker_names(tmp_path):
    claims = {"numerics.amp": CatalogClaim("numerics.amp", "gpu-only"), "tensors.planted": CatalogClaim("tensors.planted")}
    text = markdown.render_markdown(results_file([pair(2.0)]), tmp_path / "r.json", None, claims=claims,
                              benchmarks={"numerics.amp": ["bench_numerics.py::test_amp_training_speedup"]})
    section = text.split("## Claims with a benchmark that did not run here")[1].split("## ")[0]
    assert "| `numerics.amp` | gpu-only | `bench_numerics.py::test_amp_training_speedup` | needs CUDA |" in section
    assert "tensors.planted" not in section


def test_which_benchmark_measures_a_claim_is_read_from_its_claim_marker():
    found = links.bench_links(catalog.ROOT / "benchmarks")
    assert found["tensors.empty-faster-than-zeros"] == ["bench_tensors.py::test_empty_vs_zeros"]
    assert all(cid in catalog.load() for cid in found)

