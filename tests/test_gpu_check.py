"""scripts/gpu-check, the GPU run: its dry run on a machine without CUDA (CI's), from a copy of the
tree without .git as a lent machine gets it; a step stopped at its limit (a partial claims report,
nothing left running); the budget and the benchmark bounds; the machine's facts and refusals (no
torch, no compiler, no headers: one line, exit 2); wheels unpacked into a Python without pip."""
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import types
import zipfile

import pytest
import torch

from torchclaims import forked, outcomes, reports as claim_reports
from torchclaims.gpu import check as gpu_check, env as gpu_env

pytestmark = pytest.mark.e2e  # runs scripts/gpu-check and its steps in processes

ROOT = pathlib.Path(__file__).resolve().parent.parent
MAX_AUTOTUNE_SPEC = "specs/test_compile_resnet_table.py::test_resnet50_table_configurations_match_eager_on_cuda[max-autotune]"


def _wheel(folder: pathlib.Path, name: str, version: str = "1.0", data: bool = False) -> pathlib.Path:
    """A minimal pure-Python wheel, made here: one module (in a .data/purelib part if ``data``) and its dist-info."""
    path = folder / f"{name}-{version}-py3-none-any.whl"
    info = f"{name}-{version}.dist-info"
    with zipfile.ZipFile(path, "w") as whl:
        whl.writestr(f"{name}-{version}.data/purelib/{name}.py" if data else f"{name}.py", "VALUE = 42\n")
        whl.writestr(f"{name}-{version}.data/scripts/{name}", "#!/bin/sh\n")   # left out: the steps run python -m
        whl.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        whl.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        whl.writestr(f"{info}/RECORD", "")
    return path


def _tree_without_git(dest: pathlib.Path) -> pathlib.Path:
    """The working tree as the device tool copies it: tracked and untracked-but-not-ignored files, no .git."""
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("needs the git checkout to copy the tree from")
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True,
                           check=True, timeout=60).stdout.decode().split("\0")
    for name in filter(None, files):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


def _clean_env(tmp_path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "TORCHCLAIMS_"))}
    env.update(TORCHCLAIMS_BENCH_SETTLE_S="0", TMPDIR=str(tmp_path / "tmp"), **extra)
    (tmp_path / "tmp").mkdir(exist_ok=True)
    return env


def _run_json(out: pathlib.Path) -> dict:
    return json.loads((out / "run.json").read_text(encoding="utf-8"))


def _gone(pid: int) -> bool:
    """The process has ended (a zombie waiting for a reaper that is not ours counts as ended)."""
    try:
        state = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in "ZX"


@pytest.mark.skipif(torch.cuda.is_available(), reason="this is the CPU dry run; on a GPU machine run scripts/gpu-check itself")
def test_the_gpu_script_runs_end_to_end_without_cuda_from_a_tree_without_git(tmp_path):
    """As on the lent machine: a copy without .git, the commit from the wheel folder's COMMIT stamp,
    a package unpacked from it; every gpu spec skips, the max-autotune ResNet-50 spec is left out,
    at most 8 files come back, no temporary folder is left."""
    tree = _tree_without_git(tmp_path / "tree")
    house, out = tmp_path / "wheels", tmp_path / "gpu"
    house.mkdir()
    _wheel(house, "tc_fake_dependency")
    (house / "COMMIT").write_text("abc1234+dirty\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "scripts/gpu-check", "-o", str(out), "--wheels", str(house), "--budget", "300"],
                          cwd=tree, env=_clean_env(tmp_path), capture_output=True, text=True, timeout=400)
    assert done.returncode == 0, f"scripts/gpu-check exited {done.returncode}: {done.stdout[-800:]} {done.stderr[-800:]}"
    assert "no CUDA here" in done.stdout, done.stdout
    run = _run_json(out)
    assert run["cuda"] is False and run["environment"]["accelerator"] == "cpu", run["environment"]
    assert run["commit"] == "abc1234+dirty" and "COMMIT" in run["commit_from"], (run["commit"], run["commit_from"])
    assert run["installed_from_wheels"] == ["tc_fake_dependency-1.0-py3-none-any.whl"], run["installed_from_wheels"]
    steps = {s["step"]: s for s in run["steps"]}
    assert [s["step"] for s in run["steps"]] == ["specs", "benchmarks", "report"], run["steps"]
    assert all(s["status"] == "ok" for s in run["steps"]), run["steps"]
    assert "-m gpu" in steps["specs"]["command"] and "-m gpu" in steps["benchmarks"]["command"], steps
    assert f"--timeout={gpu_check.SPEC_TIMEOUT_S}" in steps["specs"]["command"], steps["specs"]["command"]
    assert run["wall_s"] <= 300 and sum(s["seconds"] for s in run["steps"]) + run["setup_s"] <= run["wall_s"] + 1, run
    report = json.loads((out / "claims.json").read_text(encoding="utf-8"))
    claim_reports.validate_report(report)
    assert report["commit"] == "abc1234+dirty", "the claims report lost the commit without .git"
    tests = [t for entry in report["claims"].values() for t in entry["tests"]]
    ran = [t for t in tests if t["status"] != "skipped" and t["result"] != "not-run"]
    skipped = [t for t in tests if t["status"] == "skipped"]
    assert not ran, f"{len(ran)} specs ran in the CPU dry run, but only gpu specs (which skip) should: {ran[:3]}"
    assert len(skipped) >= 20, f"only {len(skipped)} gpu specs were collected and skipped"
    assert all(t["reason"].startswith("needs CUDA") for t in skipped), {t["reason"] for t in skipped}
    assert run["skips"] == {"needs CUDA": len(skipped)}, run["skips"]
    ids = {t["id"] for t in tests}
    assert MAX_AUTOTUNE_SPEC not in ids and MAX_AUTOTUNE_SPEC.replace("max-autotune", "default") in ids, sorted(ids)[:5]
    files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert files == run["outputs"] and len(files) <= 8, files
    assert max(len(pathlib.PurePath(f).parts) for f in files) <= 3, files   # at most 2 folders down
    assert {"claims.json", "bench-gpu.json", "bench/report.md", "run.json", "log.txt"} <= set(files), files
    assert run["site"] and not pathlib.Path(run["site"]).exists(), f"the wheels' folder {run['site']} was left behind"
    assert not list((tmp_path / "tmp").glob("torchclaims-site-*")), "a temporary folder was left behind"


SLEEPY_PLUGIN = '''
import os, shutil, subprocess, sys, time

def pytest_ignore_collect(collection_path, config):
    """One small spec file of gpu specs: the step reaches its first spec in seconds, however busy
    the machine, so it needs no long limit to be stopped at."""
    if collection_path.suffix == ".py" and collection_path.name != "test_devices_troubleshooting.py":
        return True
    return None

def pytest_runtest_logfinish(nodeid, location):
    """After the first spec: keep a copy of run.json as it is while the step runs, start a child in
    its own session (as a benchmark's compile worker is), then hang, so the step meets its limit."""
    if not nodeid.startswith("specs/"):
        return
    if os.environ.get("TC_RUN_JSON"):
        shutil.copy(os.environ["TC_RUN_JSON"], os.environ["TC_RUN_JSON_SEEN"])
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
    with open(os.environ["TC_SLEEPY_PIDS"], "a") as f:
        f.write(f"{os.getpid()} {child.pid}\\n")
    time.sleep(600)
'''


@pytest.mark.skipif(torch.cuda.is_available(), reason="the CPU dry run")
def test_a_step_stopped_at_its_limit_leaves_a_partial_claims_report_and_nothing_running(tmp_path):
    """A specs step that hangs after its first spec: SIGINT at its limit makes pytest write
    claims.json.partial; run.json says which step stopped, why, and with which signal; the child it
    started in a session of its own (a benchmark's worker) is ended too; the run goes on to the next
    step (here the report, which skips: no benchmark ran). The specs step gets about 26 s of a 35 s
    budget (the share of a 20 s minimum, after the setup's torch probe), time enough to import torch
    and collect the plugin's one spec file on a busy machine."""
    budget = 35
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "tc_sleepy.py").write_text(SLEEPY_PLUGIN, encoding="utf-8")
    pids, out = tmp_path / "pids.txt", tmp_path / "gpu"
    env = _clean_env(tmp_path, PYTHONPATH=str(tmp_path / "plugins"), PYTEST_ADDOPTS="-p tc_sleepy",
                     TC_SLEEPY_PIDS=str(pids), TC_RUN_JSON=str(out / "run.json"), TC_RUN_JSON_SEEN=str(tmp_path / "seen.json"))
    began = time.monotonic()
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "gpu-check"), "-o", str(out), "--budget", str(budget),
                           "--steps", "specs,report"], env=env, capture_output=True, text=True, timeout=200)
    wall = time.monotonic() - began
    assert done.returncode == 1, f"exit {done.returncode}: {done.stdout[-800:]} {done.stderr[-800:]}"
    run = _run_json(out)
    specs = run["steps"][0]
    assert specs["step"] == "specs" and specs["status"] == "stopped at its limit", specs
    assert specs["ended_by"] == "SIGINT" and "limit" in specs["reason"], specs
    assert specs["seconds"] <= specs["limit_s"] + 2, specs
    assert specs["claims_report"].startswith("claims.json.partial"), specs
    assert not (out / "claims.json").exists()
    partial = json.loads((out / "claims.json.partial").read_text(encoding="utf-8"))
    claim_reports.validate_report(partial)
    assert partial["interrupted"] is True
    assert sum(len(e["tests"]) for e in partial["claims"].values()) >= 1, "the spec that ran before the stop is lost"
    started = [line.split() for line in pids.read_text().splitlines()]
    assert started, "the plugin never ran: the step was stopped before its first spec"
    for pytest_pid, child in started:
        assert _gone(int(pytest_pid)) and _gone(int(child)), f"{child} outlived the step"
        assert any(entry.startswith(f"{child} ") for entry in specs.get("left_behind", [])), specs
    assert [s["step"] for s in run["steps"]] == ["specs", "report"] and run["steps"][1]["status"] == "skipped", run
    seen = json.loads((tmp_path / "seen.json").read_text(encoding="utf-8"))   # run.json while the first step ran
    assert seen["machine"]["compiler"] and seen["machine"]["python_headers"] and seen["environment"]["torch"], seen
    assert seen["machine"]["cpus"] == os.cpu_count() and "gpus" in seen["machine"] and "driver" in seen["machine"]
    assert wall <= budget + 10 and run["wall_s"] <= budget, (wall, run["wall_s"])
    files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert "claims.json.partial" in files and len(files) <= 8, files


def _step_run(tmp_path, budget=30.0) -> gpu_check.Run:
    out = tmp_path / "out"
    out.mkdir()
    return gpu_check.Run(out, budget, time.monotonic(), {"steps": []})


def test_a_step_deaf_to_sigint_and_sigterm_is_killed_within_its_limit_with_its_group(tmp_path):
    code = ("import signal, subprocess, sys, time\n"
            "signal.signal(signal.SIGINT, signal.SIG_IGN); signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
            "child = subprocess.Popen([sys.executable, '-c', 'import signal, time; "
            "signal.signal(signal.SIGINT, signal.SIG_IGN); signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)'])\n"
            "print(child.pid, flush=True); time.sleep(600)\n")
    run = _step_run(tmp_path)
    began = time.monotonic()
    record = run.step("deaf", [sys.executable, "-c", code], 4.0, dict(os.environ))
    run.log.close()
    assert record["status"] == "stopped at its limit" and record["ended_by"] == "SIGKILL", record
    assert time.monotonic() - began <= 4.0 + 1.5, record
    child = int((tmp_path / "out" / "log.txt").read_text().split("\n")[-2])
    deadline = time.monotonic() + 3
    while not _gone(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _gone(child), "the step's child (same group) outlived the SIGKILL"
    assert _run_json(tmp_path / "out")["steps"][0]["ended_by"] == "SIGKILL"


def test_a_process_a_finished_step_left_in_its_own_session_is_ended_after_it(tmp_path):
    code = ("import subprocess, sys\n"
            "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'], start_new_session=True)\n"
            "print(child.pid, flush=True); import time; time.sleep(1)\n")
    run = _step_run(tmp_path)
    record = run.step("leaves-one", [sys.executable, "-c", code], 20.0, dict(os.environ))
    run.log.close()
    child = int((tmp_path / "out" / "log.txt").read_text().split("\n")[-2])
    assert record["status"] == "ok", record
    assert any(entry.startswith(f"{child} ") for entry in record.get("left_behind", [])), record
    assert _gone(child), f"{child}, started in its own session by the step, outlived it"


def test_the_budget_holds_with_the_setup_counted():
    """Each step's limit is its share, less when the setup or an earlier step took more; all the
    limits together never pass the budget, whatever the setup took."""
    for setup in (0.0, 15.0, 60.0, 200.0):
        run = gpu_check.Run.__new__(gpu_check.Run)
        run.budget, run.began = 480.0, time.monotonic() - setup
        total = setup
        for step in gpu_check.STEPS:
            limit = run.limit(step, gpu_check.STEPS)
            assert limit <= 480 * gpu_check.SHARES[step] + 1e-6, (setup, step, limit)
            total += limit
            run.began -= limit   # the step used all of it
        assert total <= 480 + 3, f"setup {setup} s: the limits add up to {total:.0f} s"
    run.began = time.monotonic()
    assert run.limit("benchmarks", ("benchmarks",)) == pytest.approx(480 * sum(gpu_check.SHARES.values()), rel=1e-3)


def test_the_benchmark_bounds_fit_the_step_and_max_autotune_gets_what_default_leaves():
    limit = 480 * gpu_check.SHARES["benchmarks"]
    bounds = {k: float(v) for k, v in gpu_check.bench_bounds(limit).items()}
    both = bounds["TORCHCLAIMS_GPU_RESNET_BUDGET_S"]
    assert both + gpu_check.BENCH_OVERHEAD_S + 20 <= limit, (bounds, limit)
    assert bounds["TORCHCLAIMS_GPU_COMPILE_LIMIT_S"] <= both / 2 and bounds["TORCHCLAIMS_GPU_AUTOTUNE_LIMIT_S"] == both
    assert both >= 180, f"only {both:.0f} s for both ResNet-50 compiles in a {limit:.0f} s step"
    source = (ROOT / "benchmarks" / "bench_compile.py").read_text(encoding="utf-8")
    for name in bounds:   # the variables the benchmark reads, so the bounds reach it
        assert f'os.environ.get("{name}")' in source, name


def test_the_max_autotune_figure_is_its_latency_or_the_bound_it_did_not_finish_within(tmp_path):
    source = (ROOT / "benchmarks" / "bench_compile.py").read_text(encoding="utf-8")
    assert 'details[f"{mode}.missing"]' in source and 'details[f"{mode}.worker_wall_s"]' in source
    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps({"benchmarks": [{"extra_info": {
        "max-autotune.worker_wall_s": 118.2, "max-autotune.missing": "was stopped after 118 s (the bound)"}}]}))
    assert gpu_check.autotune_figure(bench) == {"finished": False, "did_not_finish_in_s": 118.2,
                                                "why": "was stopped after 118 s (the bound)"}
    bench.write_text(json.dumps({"benchmarks": [{"extra_info": {"max-autotune.cold_compile_s": 71.5,
                                                                "max-autotune.worker_wall_s": 90.0}}]}))
    assert gpu_check.autotune_figure(bench)["cold_compile_s"] == 71.5
    assert gpu_check.autotune_figure(tmp_path / "none.json") is None


def test_the_specs_step_divides_the_threads_among_its_workers_and_leaves_out_the_autotune_compile(tmp_path):
    command, env, threads = gpu_check.specs_command(tmp_path, True, 8, 16, True)
    assert command[command.index("-n") + 1] == "8" and threads["workers"] == 8
    for key in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "TORCHINDUCTOR_COMPILE_THREADS"):
        assert int(env[key]) * 8 <= 16, env
    assert command[len(command) - command[::-1].index("-m")] == gpu_check.QUICK_AND_GPU   # pytest's -m, not python's
    assert command[command.index("--deselect") + 1] == MAX_AUTOTUNE_SPEC
    _, env, _ = gpu_check.specs_command(tmp_path, False, 1, 2, False)
    assert env["OMP_NUM_THREADS"] == "2"   # one process: all of them


def test_the_left_out_spec_exists_so_the_deselection_cannot_rot():
    done = forked.run(["-m", "pytest", "specs/test_compile_resnet_table.py", "--collect-only", "-q", "-p", "no:randomly"],
                      cwd=ROOT, timeout=120)
    listed = done.stdout
    if "needs" in listed and "::" not in listed:
        pytest.skip("the spec file skips whole here: " + listed.strip().splitlines()[0])
    for nodeid in gpu_check.LEFT_OUT:
        assert nodeid in listed, f"{nodeid} is no longer collected: LEFT_OUT deselects nothing\n{listed[-600:]}"


def test_a_timed_out_spec_is_broken_not_a_verdict_on_torch(tmp_path):
    """pytest-timeout's failure is the spec's, not torch's answer: broken, never failed."""
    spec = tmp_path / "test_sleeps.py"
    spec.write_text(textwrap.dedent("""
        import time
        import pytest

        @pytest.mark.claim("tensors.view-needs-contiguous")
        def test_sleeps_past_its_timeout():
            time.sleep(30)
    """), encoding="utf-8")
    report = tmp_path / "r.json"
    done = forked.run(["-m", "pytest", str(spec), "-p", "torchclaims.plugin", "-p", "no:randomly",
                       "-p", "no:cacheprovider", "--timeout=2", "--claims-report", str(report), "-q"],
                      cwd=tmp_path, timeout=120)
    assert done.returncode == 1, done.stdout[-1500:]
    tests = json.loads(report.read_text())["claims"]["tensors.view-needs-contiguous"]["tests"]
    assert [t["result"] for t in tests] == ["broken"] and "pytest-timeout" in tests[0]["reason"], tests
    exc = pytest.fail.Exception("Timeout (>90.0s) from pytest-timeout.")
    assert outcomes.spec_result([], types.SimpleNamespace(value=exc))[0] == "broken"
    assert outcomes.spec_result([], types.SimpleNamespace(value=pytest.fail.Exception("x != y")))[0] == "failed"


# ------------------------------------------------------------------ the machine and the refusals


def test_the_machine_facts_are_read_without_torch_or_a_compile():
    facts = gpu_env.machine_facts()
    for key in ("python", "pip", "torch_installed", "cpus", "cpus_usable", "gpus", "driver", "cuda_driver",
                "compiler", "python_headers"):
        assert key in facts, key
    assert facts["cpus"] == os.cpu_count() and facts["torch_installed"] is True


def test_a_missing_compiler_is_one_line_and_exit_2_with_the_facts_kept(tmp_path):
    out = tmp_path / "gpu"
    began = time.monotonic()
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "gpu-check"), "-o", str(out)],
                          env=_clean_env(tmp_path, CC="/nonexistent/cc"), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done
    assert time.monotonic() - began < 20, "the refusal should come before torch is even imported"
    assert done.stderr.count("\n") == 1 and "no C compiler ($CC (/nonexistent/cc))" in done.stderr, done.stderr
    run = _run_json(out)
    assert run["refused"].startswith("no C compiler") and run["machine"]["compiler"] is None, run
    assert run["steps"] == [] and sorted(p.name for p in out.iterdir()) == ["run.json"]


def test_missing_python_headers_are_one_line_and_exit_2(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(gpu_env, "python_headers", lambda: None)
    assert gpu_check.main(["-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "no Python.h" in err, err


def test_a_gpu_torch_cannot_see_is_a_refusal_not_a_dry_run(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(gpu_env, "machine_facts", lambda real=gpu_env.machine_facts: {**real(), "gpus": ["NVIDIA H200"]})
    if torch.cuda.is_available():
        pytest.skip("torch sees the GPU here")
    assert gpu_check.main(["-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "sees no CUDA GPU here (NVIDIA H200" in err, err
    assert gpu_check.main(["-o", str(tmp_path / "out2"), "--require-cuda"]) == 2


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory):
    """A Python with nothing installed: no pip, no packaging, no torch (a venv made --without-pip)."""
    venv = tmp_path_factory.mktemp("bare") / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    lacks = subprocess.run([str(python), "-c", "import importlib.util as u; "
                            "print([m for m in ('pip', 'packaging', 'torch') if u.find_spec(m)])"],
                           capture_output=True, text=True, timeout=60)
    assert lacks.stdout.strip() == "[]", lacks
    return python


def test_a_python_without_pip_installs_the_wheels_by_unpacking_them(tmp_path, bare_python):
    house, site = tmp_path / "wheels", tmp_path / "site"
    house.mkdir()
    _wheel(house, "tc_fake_plain")
    _wheel(house, "tc_fake_data", data=True)
    _wheel(house, "torch", "9.0")
    code = ("import pathlib, sys; sys.path.insert(0, sys.argv[1]); from torchclaims.gpu import env as gpu_env\n"
            "print(gpu_env.install(pathlib.Path(sys.argv[2]), sys.argv[3], ['tc-fake-plain>=1', 'packaging>=23']))\n"
            "sys.path.insert(0, sys.argv[3]); import tc_fake_plain, tc_fake_data\n"
            "print(tc_fake_plain.VALUE + tc_fake_data.VALUE, gpu_env.missing(['tc-fake-plain>=1', 'packaging>=23'], [sys.argv[3]]))\n"
            "print(gpu_env._older('9.2.0', '10.0'), gpu_env._older('10.0', '9.2.0'))\n")
    done = subprocess.run([str(bare_python), "-c", code, str(ROOT), str(house), str(site)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    installed, imported, older = done.stdout.strip().splitlines()
    assert older == "True False", older   # versions compared without packaging
    assert installed == str(["tc_fake_data-1.0-py3-none-any.whl", "tc_fake_plain-1.0-py3-none-any.whl"]), installed
    assert imported == "84 ['packaging>=23']", imported   # without packaging: no traceback, packaging reported missing
    assert not (site / "torch").exists() and not (site / "bin").exists() and not (site / "tc_fake_data-1.0.data").exists()


def test_a_python_without_torch_is_told_so_in_one_line(tmp_path, bare_python):
    out = tmp_path / "gpu"
    done = subprocess.run([str(bare_python), str(ROOT / "scripts" / "gpu-check"), "-o", str(out)],
                          env=_clean_env(tmp_path), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and "no torch in this Python" in done.stderr, done.stderr
    assert _run_json(out)["machine"]["torch_installed"] is False


def test_the_gpu_script_never_writes_into_a_folder_that_holds_something(tmp_path, capsys):
    keep = tmp_path / "run.json"
    keep.write_text("a complete earlier run\n", encoding="utf-8")
    assert gpu_check.main(["-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "not an empty folder" in err, err
    assert keep.read_text(encoding="utf-8") == "a complete earlier run\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json"]


def test_a_missing_package_without_a_wheel_folder_is_one_line_with_the_download_command(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(gpu_env, "requirements", lambda extras=(): ["no-such-torchclaims-dependency>=1"])
    assert gpu_check.main(["-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0, err
    assert "missing no-such-torchclaims-dependency>=1" in err and "pip download --only-binary=:all: --python-version 3.12" in err, err
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["run.json"]
    run = _run_json(tmp_path / "out")
    assert run["refused"].startswith("missing no-such-torchclaims-dependency")
    assert not pathlib.Path(run["site"]).exists(), "a refused run left its wheels' folder behind"


def test_requirements_are_pyprojects_core_and_report_extras_without_torch():
    reqs = gpu_env.requirements()
    names = {re.split(r"[<>=]", r)[0] for r in reqs}
    assert {"pytest", "hypothesis", "pytest-socket", "pytest-timeout", "pytest-benchmark", "jsonschema"} <= names, names
    assert not names & {"torch", "torchvision", "torchclaims"}, names
    assert gpu_env.missing(reqs) == [], "this venv (make setup) lacks a requirement of the GPU run"


def test_only_the_wheels_this_machine_lacks_are_installed_and_never_torch(tmp_path):
    house, site = tmp_path / "wheels", tmp_path / "site"
    house.mkdir()
    _wheel(house, "tc_fake_dependency")
    _wheel(house, "pytest", "1.0")          # installed already, newer, good enough: left alone
    _wheel(house, "hypothesis", "99.0")     # installed, but below what a requirement asks: replaced
    _wheel(house, "iniconfig", "99.0")      # a dependency installed older than its wheel: replaced
    _wheel(house, "torch", "1.0")           # never replaced, whatever the folder holds
    _wheel(house, "nvidia_cublas", "1.0")
    _wheel(house, "tc_fake_dependency", "0.9")   # a folder filled twice: its newest wheel is the one
    reqs = ["pytest>=1", "hypothesis>=999"]
    assert [w.name for w in gpu_env.wheels_to_install(house, reqs)] == [
        "hypothesis-99.0-py3-none-any.whl", "iniconfig-99.0-py3-none-any.whl", "tc_fake_dependency-1.0-py3-none-any.whl"]
    assert gpu_env.missing(["tc-fake-dependency>=1"]) == ["tc-fake-dependency>=1"]
    for name in ("hypothesis-99.0-py3-none-any.whl", "iniconfig-99.0-py3-none-any.whl", "tc_fake_dependency-0.9-py3-none-any.whl"):
        (house / name).unlink()
    assert gpu_env.install(house, str(site)) == ["tc_fake_dependency-1.0-py3-none-any.whl"]
    assert gpu_env.missing(["tc-fake-dependency>=1"], [str(site)]) == []
    assert (site / "tc_fake_dependency.py").exists() and not (site / "torch").exists()


def test_the_commit_comes_from_the_option_git_or_the_wheel_folders_stamp(tmp_path):
    (tmp_path / "COMMIT").write_text("f00dfee\n", encoding="utf-8")
    assert gpu_env.commit_of("1234567", str(tmp_path), "abc1234") == ("1234567", "--commit")
    assert gpu_env.commit_of(None, str(tmp_path), "abc1234") == ("abc1234", "git")
    commit, where = gpu_env.commit_of(None, str(tmp_path), None)   # a copy of the tree without .git
    assert commit == "f00dfee" and "COMMIT" in where
    assert gpu_env.commit_of(None, None, None)[0] is None
    (tmp_path / "COMMIT").write_text(f"f00dfee {gpu_env.tree_digest()}\n", encoding="utf-8")
    assert gpu_env.commit_of(None, str(tmp_path), None)[0] == "f00dfee"   # stamped from this very tree
    (tmp_path / "COMMIT").write_text("f00dfee 0123456789abcdef\n", encoding="utf-8")
    commit, where = gpu_env.commit_of(None, str(tmp_path), None)
    assert commit == "f00dfee+changed" and "changed since" in where, (commit, where)


def test_the_tree_digest_follows_the_specs_and_nothing_else(tmp_path):
    for part in ("specs", "claims", "torchclaims", "docs"):
        (tmp_path / part).mkdir()
        (tmp_path / part / "a.py").write_text("x = 1\n", encoding="utf-8")
    before = gpu_env.tree_digest(tmp_path)
    (tmp_path / "docs" / "a.py").write_text("x = 2\n", encoding="utf-8")
    (tmp_path / "specs" / "__pycache__").mkdir()
    (tmp_path / "specs" / "__pycache__" / "a.pyc").write_bytes(b"\0")
    assert gpu_env.tree_digest(tmp_path) == before
    (tmp_path / "specs" / "a.py").write_text("x = 3\n", encoding="utf-8")
    assert gpu_env.tree_digest(tmp_path) != before
    assert gpu_env.git_commit() == claim_reports.specs_commit()


def test_gpu_check_itself_stopped_keeps_what_finished(tmp_path):
    """SIGTERM to gpu-check (a time limit around it): the running step is stopped, run.json says so."""
    out = tmp_path / "gpu"
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "tc_sleepy.py").write_text(SLEEPY_PLUGIN, encoding="utf-8")
    env = _clean_env(tmp_path, PYTHONPATH=str(tmp_path / "plugins"), PYTEST_ADDOPTS="-p tc_sleepy",
                     TC_SLEEPY_PIDS=str(tmp_path / "pids.txt"))
    proc = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "gpu-check"), "-o", str(out), "--budget", "300"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (tmp_path / "pids.txt").exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, (stdout[-500:], stderr[-500:])
    run = _run_json(out)
    assert "SIGTERM" in run["stopped"] and run["steps"][0]["status"] == "interrupted", run
    assert (out / "claims.json.partial").is_file()
    for line in (tmp_path / "pids.txt").read_text().splitlines():
        assert all(_gone(int(pid)) for pid in line.split()), line


def test_the_gpu_doc_quotes_the_scripts_own_command_and_figures():
    """docs/gpu.md's command is the one make gpu runs, and its times are the script's own shares and bounds."""
    doc = (ROOT / "docs" / "gpu.md").read_text(encoding="utf-8")
    assert 'python3 scripts/gpu-check -o "$OUT" --wheels wheels/py312 --require-cuda' in doc
    assert "--require-cuda" in (ROOT / "Makefile").read_text(encoding="utf-8").split("\ngpu:")[1].splitlines()[1]
    budget = 480
    limits = {step: budget * share for step, share in gpu_check.SHARES.items()}
    for step, limit in limits.items():
        assert f"| {step} | at most {limit:.0f} s ({gpu_check.SHARES[step]:.0%}) |" in doc, step
    both = int(gpu_check.bench_bounds(limits["benchmarks"])["TORCHCLAIMS_GPU_RESNET_BUDGET_S"])
    assert f"get {both} s for both modes" in doc and f"at least {both - gpu_check.DEFAULT_COMPILE_BOUND_S} s" in doc
    assert f"`--timeout={gpu_check.SPEC_TIMEOUT_S}`" in doc and f"pytest's own start {gpu_check.BENCH_OVERHEAD_S} s" in doc


def test_prepare_downloads_every_requirement_but_torch_for_python_3_12_and_stamps_the_commit(tmp_path, monkeypatch, capsys):
    """pip itself is not run here (no network in a test): the command it would run, and what follows."""
    calls = []

    def pip_download(command, **kwargs):
        calls.append(command)
        folder = pathlib.Path(command[command.index("-d") + 1])
        folder.mkdir(parents=True, exist_ok=True)
        _wheel(folder, "tc_fake_dependency")
        return types.SimpleNamespace(returncode=0, stderr="")

    monkeypatch.setattr(gpu_check, "subprocess", types.SimpleNamespace(run=pip_download))
    monkeypatch.setattr(gpu_env, "git_commit", lambda: "abc1234")
    assert gpu_check.main(["--prepare", str(tmp_path / "w")]) == 0
    command = calls[0]
    assert command[:4] == [sys.executable, "-m", "pip", "download"] and "--only-binary=:all:" in command
    assert command[command.index("--python-version") + 1] == "3.12" and command[command.index("--abi") + 1] == "cp312"
    assert set(gpu_env.requirements()) | {"pytest-xdist>=3.5"} <= set(command), command
    assert not [c for c in command if re.match(r"torch\b|torchvision|nvidia", c)], command
    assert (tmp_path / "w" / "COMMIT").read_text(encoding="utf-8") == f"abc1234 {gpu_env.tree_digest()}\n"
    assert f'carry list: ["{tmp_path / "w"}"]' in capsys.readouterr().out
    monkeypatch.setattr(gpu_check, "subprocess", types.SimpleNamespace(
        run=lambda command, **kwargs: types.SimpleNamespace(returncode=1, stderr="ERROR: No matching distribution\n")))
    assert gpu_check.main(["--prepare", str(tmp_path / "w2")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "gpu-check: pip download failed: ERROR: No matching distribution", err


def test_a_step_with_too_little_time_left_is_not_started_and_says_so(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(gpu_check, "MIN_STEP_S", {"specs": 10_000, "benchmarks": 20, "report": 5})
    out = tmp_path / "out"
    assert gpu_check.main(["-o", str(out), "--steps", "report,specs"]) == 1
    run = _run_json(out)
    assert [s["step"] for s in run["steps"]] == ["specs", "report"], run["steps"]   # the run's order, whatever --steps says
    assert run["steps"][0]["status"] == "not run" and "10000 s" in run["steps"][0]["reason"], run["steps"][0]
    assert "not run" in capsys.readouterr().out and not (out / "claims.json").exists()
    assert gpu_check.main(["-o", str(tmp_path / "o2"), "--steps", "specs,nothing"]) == 2


def test_machine_facts_leave_setuptools_distutils_in_place():
    """Tooling: asking whether pip is there must not make setuptools' distutils shim step aside
    (find_spec("pip") did, and a later Inductor compile in the same process failed)."""
    gpu_env.machine_facts()
    import importlib

    import setuptools  # noqa: F401  (what Inductor's C++ builder imports)
    assert "_distutils" in importlib.import_module("distutils.core").__file__
