"""The claim matrix: `pytest specs/ --claims-report` on several torch versions, one venv each.

    nox -s claims            # every version below, then render reports/matrix.{md,html}
    nox -s "claims(torch='2.5.1')"
    nox -s matrix            # render only, from the committed reports

Why these versions:
- 2.5.1: the last release where torch.load defaults to weights_only=False (2.6 flipped it);
- 2.9.1: the 2.9 line, between the two (torch.cuda.amp deprecated since 2.4, weights_only=True);
- 2.13.0: a local CPU-only wheel with no matching torchvision (torchvision specs skip);
- 2.14.1: the version the project pins (local CUDA build with torchvision 0.29.1);
- 2.15.0: the newest release in the registry (no torchvision for it yet).

Wheels come from the registry, or from a folder named by TORCHCLAIMS_WHEELHOUSE.
Each run is `--full` (slow, compile and distributed specs included). Each venv is deleted
after its run (a CUDA build of torch takes about 5 GB; the largest moment of a run is one
venv plus the wheel cache, about 10 GB of disk with TORCHCLAIMS_WHEELHOUSE holding 9.5 GB of
wheels for the three registry versions).
"""
import os
import pathlib
import shutil
import sys

import nox

nox.options.sessions = ["claims", "matrix"]
nox.options.reuse_existing_virtualenvs = False

TORCH = {  # torch -> matching torchvision, or None where there is none
    "2.5.1": "0.20.1",
    "2.9.1": "0.24.1",
    "2.13.0": None,
    "2.14.1": "0.29.1",
    "2.15.0": None,
}
# Versions the machine's pip config caps or serves locally; the others need the cap lifted.
LOCAL = {"2.13.0", "2.14.1"}
TEST_DEPS = ["numpy", "pytest", "hypothesis", "pytest-xdist", "pytest-timeout", "pytest-benchmark", "pytest-socket",
             "rich", "jsonschema"]
REPORTS = pathlib.Path("reports/claims")


@nox.session(python="3.11")
@nox.parametrize("torch", list(TORCH))
def claims(session, torch):
    env = {} if torch in LOCAL else {"PIP_CONFIG_FILE": os.devnull}
    wheelhouse = os.environ.get("TORCHCLAIMS_WHEELHOUSE")
    extra = ["--find-links", wheelhouse] if wheelhouse else []
    packages = [f"torch=={torch}"] + ([f"torchvision=={TORCH[torch]}"] if TORCH[torch] else [])
    session.install(*extra, *packages, *TEST_DEPS, env=env)
    REPORTS.mkdir(parents=True, exist_ok=True)
    try:
        session.run("python", "-m", "pytest", "specs/", "--full", "-n", "2", "-q", "-p", "no:cacheprovider",
                    "--claims-report", str(REPORTS / f"torch-{torch}.json"), success_codes=[0, 1])
    finally:
        shutil.rmtree(session.virtualenv.location, ignore_errors=True)


@nox.session(python=False)
def matrix(session):
    reports = sorted(str(p) for p in REPORTS.glob("torch-*.json"))
    session.run(sys.executable, "-m", "torchclaims", "matrix", *reports, "-o", "reports/matrix")
