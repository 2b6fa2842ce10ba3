"""The command line: one line and exit status 2 on bad input, whole files, no committed file replaced by default."""
import json
import os
import subprocess
import sys

import pytest

from torchclaims import catalog

from .helpers import cli, pair, results_file

pytestmark = pytest.mark.e2e  # runs the bench-report command


def test_bad_input_is_one_line_and_exit_status_2(tmp_path):
    missing = cli(str(tmp_path / "nope.json"), cwd=tmp_path)
    assert missing.returncode == 2 and len(missing.stderr.strip().splitlines()) == 1, missing.stderr
    (tmp_path / "bad.json").write_text("{not json")
    bad = cli(str(tmp_path / "bad.json"), cwd=tmp_path)
    assert bad.returncode == 2 and "not valid JSON" in bad.stderr and "Traceback" not in bad.stderr
    (tmp_path / "stat.json").write_text(json.dumps(results_file([pair(2.0, stat="mean-of-ratios")])))
    stat = cli(str(tmp_path / "stat.json"), "-o", str(tmp_path / "out"), cwd=tmp_path)
    assert stat.returncode == 2 and "mean-of-ratios" in stat.stderr and "Traceback" not in stat.stderr


def test_the_command_writes_the_report_and_the_chart(tmp_path):
    (tmp_path / "r.json").write_text(json.dumps(results_file([pair(2.0, claim="tensors.empty-faster-than-zeros")])))
    done = cli(str(tmp_path / "r.json"), "-o", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "report.png").exists()
    assert "tensors.empty-faster-than-zeros" in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")


def test_without_o_an_existing_report_is_never_replaced_and_nothing_half_written_is_left(tmp_path):
    results = tmp_path / "r.json"
    results.write_text(json.dumps(results_file([pair(2.0, claim="tensors.empty-faster-than-zeros")])))
    (tmp_path / "report.md").write_text("a report someone keeps\n", encoding="utf-8")
    refused = cli(str(results), cwd=tmp_path)
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert "pass -o" in refused.stderr
    assert (tmp_path / "report.md").read_text(encoding="utf-8") == "a report someone keeps\n"
    asked = cli(str(results), "-o", str(tmp_path), cwd=tmp_path)
    assert asked.returncode == 0, asked.stderr
    assert "tensors.empty-faster-than-zeros" in (tmp_path / "report.md").read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json", "report.md", "report.png"], "temporary files left"


@pytest.mark.slow
def test_the_gpu_run_commands_work_where_cuda_is_absent(tmp_path):
    """The GPU run's two commands, on this machine: every gpu benchmark skips with its reason, the
    results file is still written (pytest-benchmark writes none when nothing ran) and rendered."""
    import torch
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA: the gpu benchmarks would run for minutes")
    root = catalog.ROOT
    results = tmp_path / "gpu.json"
    run = subprocess.run([sys.executable, "-m", "pytest", "benchmarks/", "-m", "gpu", "--benchmark-only", "-p", "no:xdist",
                          "-p", "no:randomly", "--benchmark-json", str(results), "-q", "-rs"],
                         capture_output=True, text=True, cwd=root, timeout=300,
                         env={**{k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")},
                              "TORCHCLAIMS_BENCH_SETTLE_S": "0"})  # an xdist worker's variables turn benchmarks off
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "passed" not in run.stdout.splitlines()[-1], "a gpu benchmark ran without CUDA"
    data = json.loads(results.read_text(encoding="utf-8"))
    assert data["benchmarks"] == [] and data["machine_info"]["torch"]["cuda_device"] is None
    names = {s["name"].split("::")[-1] for s in data["skipped"]}
    assert {"test_resnet50_gpu", "test_amp_training_speedup", "test_amp_training_memory",
            "test_pinned_vs_pageable_host_to_device"} <= names, names
    assert all(s["reason"] == "needs CUDA: no GPU on this machine" for s in data["skipped"]), data["skipped"]
    done = cli(str(results), "-o", str(tmp_path / "bench"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "bench" / "report.md").read_text(encoding="utf-8")
    assert "4 benchmarks skipped in this run" in text and "needs CUDA: no GPU on this machine" in text

