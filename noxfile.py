"""The claim history: `pytest specs/ --claims-report` on every torch minor release, one venv each.

    nox -s claims                         # every release below not measured yet, then the matrix
    nox -s "claims(torch='2.0.1')"        # one release
    nox -s matrix                         # render reports/matrix.{md,html} from the committed reports

The last patch of every minor release with Python 3.11 wheels, 1.13 to 2.15 (17 releases), and
the first patch (X.Y.0) of every minor release where the history found a flip (2.0.0, 2.4.0,
2.5.0; 2.6.0 and 2.10.0 are both), so that "since" names the first release that has the change.
Resumable: a release whose report (reports/claims/torch-V.json) exists is skipped; set
TORCHCLAIMS_MATRIX_FORCE=1 to measure it again. Claims added later: TORCHCLAIMS_MATRIX_ONLY="specs/test_a.py
specs/test_b.py" runs only those spec files on every release and merges the claims they ran into its
report (the report's `parts` name each merge's commit), in a tenth of a whole run's time. Each run appends one line (release, seconds,
venv size in MB) to reports/claims/runs.tsv and prints it as a progress line.

Wheels: from the registry, or from TORCHCLAIMS_WHEELHOUSE/<version>/ (filled beforehand with
`pip download torch==V torchvision==W 'numpy<2'`), which avoids downloading again on a rerun. A
CUDA build of torch with its nvidia packages is 2 to 4 GB of wheels and 5 to 7 GB installed: each
venv is deleted after its run, so the largest moment is one venv plus the wheel cache.
Facts this list encodes: no torchvision for Python 3.11 before 0.15 (none for torch 1.13) nor yet
for 2.15; torch below 2.3 needs numpy<2; 2.13.0 is the local CPU-only build here, without
torchvision (PyPI's torchvision does not import beside it).
"""
import os
import pathlib
import shlex
import shutil
import sys
import time
import tomllib

import nox

nox.options.sessions = ["claims", "matrix"]
nox.options.reuse_existing_virtualenvs = False

TORCH = {  # torch -> matching torchvision, or None where there is none for Python 3.11
    "1.13.1": None, "2.0.0": "0.15.1", "2.0.1": "0.15.2", "2.1.2": "0.16.2", "2.2.2": "0.17.2", "2.3.1": "0.18.1",
    "2.4.0": "0.19.0", "2.4.1": "0.19.1", "2.5.0": "0.20.0", "2.5.1": "0.20.1", "2.6.0": "0.21.0", "2.7.1": "0.22.1", "2.8.0": "0.23.0",
    "2.9.1": "0.24.1", "2.10.0": "0.25.0", "2.11.0": "0.26.0", "2.12.1": "0.27.1", "2.13.0": None,
    "2.14.1": "0.29.1", "2.15.0": None,
}
# Versions the machine's pip config serves locally; the others need its cap lifted.
LOCAL = {"2.13.0", "2.14.1"}
NUMPY_1 = {"1.13.1", "2.0.0", "2.0.1", "2.1.2", "2.2.2"}   # built against numpy 1.x
# Inductor of 2.1 imports pkg_resources (torch/utils/cpp_extension.py), which fresh virtualenvs no
# longer carry: without setuptools every compile spec fails with ModuleNotFoundError there.
NEEDS_PKG_RESOURCES = {"2.1.2"}
REPORTS = pathlib.Path("reports/claims")
# Merges a part report into the release's report, whole or not at all (run in the release's venv).
MERGE = ("import json, pathlib, sys; from torchclaims import files, reports; "
         "base, part = (json.loads(pathlib.Path(p).read_text(encoding='utf-8')) for p in sys.argv[1:3]); "
         "files.write_whole(sys.argv[1], json.dumps(reports.merge_report(base, part), indent=1, ensure_ascii=False) + '\\n')")
DEFAULT_ARGS = '-n 2 -m "not slow and not distributed"'
# The plugin's and the specs' dependencies come from pyproject.toml, the one place they are declared:
# the core list and every extra, less torch and torchvision (installed above, per release) and the
# packages no spec run needs.
NOT_TEST_DEPS = ("torch", "torchvision", "numpy", "nox", "matplotlib")


def _name(requirement: str) -> str:
    return requirement.split(";")[0].split("[")[0].split("=")[0].split(">")[0].split("<")[0].strip()


def test_deps() -> list[str]:
    project = tomllib.loads(pathlib.Path("pyproject.toml").read_text(encoding="utf-8"))["project"]
    deps = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        deps += [d for d in extra if d not in deps]
    return [d for d in deps if _name(d) != "torchclaims" and _name(d) not in NOT_TEST_DEPS]


def _venv_mb(path) -> int:
    return sum(f.stat().st_size for f in pathlib.Path(path).rglob("*") if f.is_file() and not f.is_symlink()) // 2**20


@nox.session(python="3.11")
@nox.parametrize("torch", list(TORCH))
def claims(session, torch):
    report = REPORTS / f"torch-{torch}.json"
    only = shlex.split(os.environ.get("TORCHCLAIMS_MATRIX_ONLY", ""))
    if only and not report.exists():
        session.skip(f"torch {torch}: no report to merge {' '.join(only)} into; measure the release whole first")
    if not only and report.exists() and not os.environ.get("TORCHCLAIMS_MATRIX_FORCE"):
        session.skip(f"torch {torch}: already measured ({report}); TORCHCLAIMS_MATRIX_FORCE=1 measures it again")
    start = time.monotonic()
    try:  # the venv (5 to 7 GB) goes, whatever happens
        env = {} if torch in LOCAL else {"PIP_CONFIG_FILE": os.devnull}
        packages = [f"torch=={torch}"] + ([f"torchvision=={TORCH[torch]}"] if TORCH[torch] else [])
        packages.append("numpy<2" if torch in NUMPY_1 else "numpy")
        house = pathlib.Path(os.environ.get("TORCHCLAIMS_WHEELHOUSE", "/nonexistent")) / torch
        where = ["--no-index", "--find-links", str(house)] if house.is_dir() else []
        # --no-compile: byte-compiling torch's thousands of files costs minutes on 2 cores
        session.install("--no-compile", *where, *packages, env=env)
        # The same pip settings, and torch named again: a dependency (captum) must not replace it
        # (the machine's pip config caps torch, which would silently downgrade a newer release).
        pin = pathlib.Path(session.create_tmp()) / "torch-pin.txt"
        pin.write_text(f"torch=={torch}\n", encoding="utf-8")
        extra = ["setuptools<81"] if torch in NEEDS_PKG_RESOURCES else []
        session.install("--no-compile", "-c", str(pin), *test_deps(), *extra, env=env)
        session.run("python", "-c", f"import torch; v = torch.__version__.split('+')[0]; "
                    f"assert v == '{torch}', f'torch {{v}} installed instead of {torch}'")
        REPORTS.mkdir(parents=True, exist_ok=True)
        # The quick run plus the compile specs; slow and distributed specs (data workers, DDP) take
        # 40% of the time and are left out: TORCHCLAIMS_MATRIX_ARGS="--full -n 2" includes them.
        args = shlex.split(os.environ.get("TORCHCLAIMS_MATRIX_ARGS", DEFAULT_ARGS))
        size = _venv_mb(session.virtualenv.location)
        if only:   # a few spec files, merged into the committed report (reports.merge_report)
            part = pathlib.Path(session.create_tmp()) / "part.json"
            session.run("python", "-m", "pytest", *only, *args, "-q", "-p", "no:cacheprovider",
                        "-p", "no:randomly", "--claims-report", str(part), success_codes=[0, 1])
            session.run("python", "-c", MERGE, str(report), str(part))
        else:
            session.run("python", "-m", "pytest", "specs/", *args, "-q", "-p", "no:cacheprovider",
                        "-p", "no:randomly", "--claims-report", str(report), success_codes=[0, 1])
    finally:
        shutil.rmtree(session.virtualenv.location, ignore_errors=True)
    seconds = time.monotonic() - start
    with open(REPORTS / "runs.tsv", "a", encoding="utf-8") as fh:
        how = f", {len(only)} spec files merged" if only else ""
        fh.write(f"{torch}\t{seconds:.0f}\t{size}\tnox session (install included{how})\n")
    session.log(f"torch {torch}: measured in {seconds:.0f} s, venv {size} MB -> {report}")


@nox.session(python=False)
def matrix(session):
    reports = sorted(str(p) for p in REPORTS.glob("torch-*.json"))
    # --force: this session exists to replace the committed page (matrix refuses otherwise)
    session.run(sys.executable, "-m", "torchclaims", "matrix", *reports, "-o", "reports/matrix", "--force")
