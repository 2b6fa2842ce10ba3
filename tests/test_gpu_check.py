"""scripts/gpu-check, the GPU run: its dry run on a machine without CUDA (CI's), its refusals, its wheel folder."""
import json
import os
import pathlib
import subprocess
import sys
import zipfile

import pytest
import torch

from torchclaims import gpu_check, outcomes

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.mark.skipif(torch.cuda.is_available(), reason="this is the CPU dry run; on a GPU machine run scripts/gpu-check itself")
def test_the_gpu_script_runs_end_to_end_without_cuda_and_every_gpu_step_skips_with_its_reason(tmp_path):
    out = tmp_path / "gpu"
    env = dict(os.environ, TORCHCLAIMS_BENCH_SETTLE_S="0")
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "gpu-check"), "-o", str(out), "--budget", "300"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=400)
    assert done.returncode == 0, f"scripts/gpu-check exited {done.returncode}: {done.stdout[-800:]} {done.stderr[-800:]}"
    assert "no CUDA here" in done.stdout, done.stdout
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert run["cuda"] is False and run["environment"]["accelerator"] == "cpu", run["environment"]
    steps = {s["step"]: s for s in run["steps"]}
    assert steps["specs"]["status"] == "ok" and "-m gpu" in steps["specs"]["command"], steps["specs"]
    assert steps["benchmarks"]["status"] == "ok" and "-m gpu" in steps["benchmarks"]["command"], steps["benchmarks"]
    report = json.loads((out / "claims.json").read_text(encoding="utf-8"))
    outcomes.validate_report(report)
    ran = [t for entry in report["claims"].values() for t in entry["tests"] if t["status"] != "skipped"
           and t["result"] != "not-run"]
    skipped = [t for entry in report["claims"].values() for t in entry["tests"] if t["status"] == "skipped"]
    assert not ran, f"{len(ran)} specs ran in the CPU dry run, but only gpu specs (which skip) should: {ran[:3]}"
    assert len(skipped) >= 20, f"only {len(skipped)} gpu specs were collected and skipped"
    assert all(t["reason"].startswith("needs CUDA") for t in skipped), {t["reason"] for t in skipped}
    assert run["skipped_gpu_specs"] == {"needs CUDA": len(skipped)}, run["skipped_gpu_specs"]
    assert "SKIPPED" in (out / "log.txt").read_text(encoding="utf-8") or "skipped" in (out / "log.txt").read_text(encoding="utf-8")


def test_the_gpu_script_never_writes_into_a_folder_that_holds_something(tmp_path, capsys):
    keep = tmp_path / "run.json"
    keep.write_text("a complete earlier run\n", encoding="utf-8")
    assert gpu_check.main(["-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "not an empty folder" in err, err
    assert keep.read_text(encoding="utf-8") == "a complete earlier run\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json"]


def test_a_missing_package_without_a_wheel_folder_is_one_line_with_the_download_command(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(gpu_check, "requirements", lambda extras=(): ["no-such-torchclaims-dependency>=1"])
    assert gpu_check.main(["-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0, err
    assert "missing no-such-torchclaims-dependency>=1" in err and "pip download --only-binary=:all: --python-version 3.12" in err, err
    assert not (tmp_path / "out").exists()


def test_requirements_are_pyprojects_core_and_report_extras_without_torch():
    reqs = gpu_check.requirements()
    names = {r.split(">")[0].split("=")[0] for r in reqs}
    assert {"pytest", "hypothesis", "pytest-socket", "pytest-timeout", "pytest-benchmark", "jsonschema"} <= names, names
    assert not names & {"torch", "torchvision", "torchclaims"}, names
    assert gpu_check.missing(reqs) == [], "this venv (make setup) lacks a requirement of the GPU run"


def _wheel(folder: pathlib.Path, name: str, version: str = "1.0") -> pathlib.Path:
    """A minimal pure-Python wheel, made here: one module and its dist-info."""
    path = folder / f"{name}-{version}-py3-none-any.whl"
    info = f"{name}-{version}.dist-info"
    with zipfile.ZipFile(path, "w") as whl:
        whl.writestr(f"{name}.py", "VALUE = 42\n")
        whl.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        whl.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        whl.writestr(f"{info}/RECORD", "")
    return path


def test_only_the_wheels_this_machine_lacks_are_installed_and_never_torch(tmp_path):
    house, site = tmp_path / "wheels", tmp_path / "site"
    house.mkdir()
    _wheel(house, "tc_fake_dependency")
    _wheel(house, "pytest", "1.0")          # installed already: left alone
    _wheel(house, "torch", "1.0")           # never replaced, whatever the folder holds
    _wheel(house, "nvidia_cublas", "1.0")
    assert [w.name for w in gpu_check.wheels_to_install(house)] == ["tc_fake_dependency-1.0-py3-none-any.whl"]
    assert gpu_check.missing(["tc-fake-dependency>=1"]) == ["tc-fake-dependency>=1"]
    assert gpu_check.install(house, str(site)) == ["tc_fake_dependency-1.0-py3-none-any.whl"]
    assert gpu_check.missing(["tc-fake-dependency>=1"], [str(site)]) == []
    assert (site / "tc_fake_dependency.py").exists() and not (site / "torch").exists()
