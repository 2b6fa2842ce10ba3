"""The mutation runner's bookkeeping: claim coverage, the red-claim probe, and its command line.

Everything here runs on a tiny catalog, tiny spec files and a tiny mutants folder in a
scratch directory; nothing runs the real specs, so it stays fast.
"""

import os
import subprocess

import pytest

from torchclaims import catalog, forked, mutants, mutants_run
from torchclaims.links import spec_links

pytestmark = pytest.mark.e2e  # runs the mutants command and its probe in pytest subprocesses

ENTRY = '''
[[claim]]
id = "tensors.{slug}"
source = "000_9a03721c87560f23.txt §2.1"
topic = "tensors"
says = "says {slug}"
says_zh = "资料的说法"
verdict = "{verdict}"
truth = "truth {slug}"
truth_zh = "实际情况"
'''

# One claim per case the coverage has to tell apart.
VERDICTS = {
    "faulted": "confirmed",        # a truth spec and a fault: covered
    "unfaulted": "refuted",        # a truth spec (and an as-written one), no fault: uncovered
    "only-as-written": "partly",   # no truth spec: not counted
    "on-gpu": "gpu-only",          # a truth spec that skips on CPU: not counted
    "unlinked": "confirmed",       # no spec at all: not counted
    "by-module-mark": "confirmed",  # linked by a module-level pytestmark in another file, no fault
}

SPECS = '''
import pytest

@pytest.mark.claim("tensors.faulted")
def test_faulted():
    assert [1, 2][0] == 1

@pytest.mark.claim("tensors.unfaulted")
def test_unfaulted_truth():
    assert len([1, 2]) == 2

@pytest.mark.claim("tensors.unfaulted", as_written=True)
@pytest.mark.claim("tensors.only-as-written", as_written=True)
def test_the_material_says():
    assert len([1, 2]) == 3

@pytest.mark.gpu
@pytest.mark.claim("tensors.on-gpu")
def test_on_gpu():
    assert True
'''

MODULE_MARKED = '''
import pytest

pytestmark = pytest.mark.claim("tensors.by-module-mark")

def test_marked_by_the_module():
    assert 2 * 3 == 6
'''

FAULTS = '''
from torchclaims.mutants import fault

@fault("tensors.faulted", "tensors.on-gpu")
def fixture_fault_breaks_indexing():
    """A fault of the scratch catalog."""
'''


@pytest.fixture(scope="session")
def project(tmp_path_factory):
    """The scratch project, one per test process: its faults register once in the process-wide
    registry (names are unique). Not one per module: under xdist's worksteal in random order a
    worker can leave this module and come back, and a second project's faults were duplicates."""
    tmp_path = tmp_path_factory.mktemp("project")
    claims = tmp_path / "claims"
    claims.mkdir()
    (claims / "tensors.toml").write_text(
        "".join(ENTRY.format(slug=s, verdict=v) for s, v in VERDICTS.items()), encoding="utf-8")
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "test_tensors_scratch.py").write_text(SPECS, encoding="utf-8")
    (specs / "test_tensors_module.py").write_text(MODULE_MARKED, encoding="utf-8")
    faults = tmp_path / "mutants"
    faults.mkdir()
    (faults / "scratch.py").write_text(FAULTS, encoding="utf-8")
    return tmp_path


def test_coverage_counts_claims_with_a_truth_spec_and_lists_those_no_fault_names(project):
    claims = catalog.load(project / "claims")
    links = spec_links(project / "specs")
    faults = mutants.load_all(project / "mutants")
    assert list(faults) == ["fixture_fault_breaks_indexing"], "load_all returned faults of another folder"
    cov = mutants.coverage(claims, links, faults.values())
    assert cov.checkable == ("tensors.by-module-mark", "tensors.faulted", "tensors.unfaulted")
    assert cov.uncovered == ("tensors.by-module-mark", "tensors.unfaulted")
    assert cov.excluded == ("tensors.on-gpu",), "a gpu-only claim must be left out, not counted"
    assert (cov.covered, round(cov.percent, 1)) == (1, 33.3)


def test_coverage_narrows_to_a_topic_and_is_complete_when_every_claim_has_a_fault(project):
    claims = catalog.load(project / "claims")
    links = spec_links(project / "specs")
    every = mutants.Fault("every", ("tensors.unfaulted", "tensors.by-module-mark"), lambda: None, "", "x")
    cov = mutants.coverage(claims, links, [*mutants.load_all(project / "mutants").values(), every])
    assert (cov.uncovered, cov.percent) == ((), 100.0)
    assert mutants.coverage(claims, links, [], topics=["modules"]).checkable == ()
    assert mutants.coverage(claims, links, [], topics=["modules", "tensors"]).checkable == cov.checkable


def test_spec_files_of_a_fault_are_only_those_linking_its_claims(project):
    links = spec_links(project / "specs")
    fault = mutants.Fault("f", ("tensors.by-module-mark",), lambda: None, "", "tensors")
    assert mutants_run._spec_files(fault, links) == ["specs/test_tensors_module.py"]


def test_the_probe_records_which_claims_went_red_and_stops_once_all_are(pytester, project, monkeypatch):
    monkeypatch.setenv("TORCHCLAIMS_CLAIMS_DIR", str(project / "claims"))
    red = project / "red.txt"
    monkeypatch.setenv(mutants.RED_CLAIMS_ENV, str(red))
    spec = SPECS.replace("[1, 2][0] == 1", "[1, 2][0] == 2")  # the truth spec of tensors.faulted fails
    pytester.makepyfile(test_a=spec, test_b=spec.replace("def test_", "def test_b_"))
    result = pytester.runpytest("-p", "torchclaims.plugin", "-p", "torchclaims.mutants", "-p", "no:randomly",
                                "-p", "no:cacheprovider", "--claim", "tensors.faulted", "--claim", "tensors.unfaulted")
    assert result.ret == 1
    assert red.read_text(encoding="utf-8").split() == ["tensors.faulted"]
    result = pytester.runpytest("-p", "torchclaims.plugin", "-p", "torchclaims.mutants", "-p", "no:randomly",
                                "-p", "no:cacheprovider", "--claim", "tensors.faulted")
    result.assert_outcomes(failed=1)  # stopped after the first red spec: test_b's twin never ran
    assert red.read_text(encoding="utf-8").split() == ["tensors.faulted"]


def test_the_probe_does_nothing_outside_a_runner(pytester, project, monkeypatch):
    monkeypatch.setenv("TORCHCLAIMS_CLAIMS_DIR", str(project / "claims"))
    monkeypatch.delenv(mutants.RED_CLAIMS_ENV, raising=False)
    pytester.makepyfile(test_a=SPECS.replace("[1, 2][0] == 1", "[1, 2][0] == 2"),
                        test_b=SPECS.replace("def test_", "def test_b_").replace("[1, 2][0] == 1", "0"))
    result = pytester.runpytest("-p", "torchclaims.plugin", "-p", "torchclaims.mutants", "-p", "no:randomly",
                                "-p", "no:cacheprovider", "--claim", "tensors.faulted")
    result.assert_outcomes(failed=2)


def mutants_command(*args):
    return forked.run(["-m", "torchclaims", "mutants", *args], cwd=catalog.ROOT, timeout=120)


def test_coverage_report_runs_nothing_and_names_the_verdicts_it_leaves_out():
    result = mutants_command("--coverage", "--topic", "tensors", "--topic", "numerics")
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert first.startswith("claim coverage: ") and "killed" not in result.stdout
    assert "tensors " in first and "numerics " in first and "autograd " not in first, first
    assert "gpu-only or not-checkable or pending" in result.stdout


@pytest.mark.parametrize("args, fragment", [
    (["no_such_fault"], "unknown fault 'no_such_fault'"),
    (["--coverage", "--topic", "nope"], "unknown topic 'nope'"),
    (["--jobs", "0"], "--jobs must be at least 1, not 0"),
    (["--timeout", "0"], "--timeout must be positive, not 0"),
    (["--list", "--coverage"], "not allowed with argument --list"),
])
def test_bad_input_is_one_line_and_exit_status_2(args, fragment):
    result = mutants_command(*args)
    assert result.returncode == 2, f"exit status {result.returncode}, expected 2; stderr={result.stderr!r}"
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], f"stderr={result.stderr!r}, expected one line with {fragment!r}"


HYPOTHESIS_PROBE = '''
def pytest_sessionfinish(session):
    from hypothesis import settings
    print("HYPOTHESIS", sorted(p.name for p in settings.default.phases), settings.default.database)
'''


def test_a_run_with_a_planted_fault_draws_examples_without_shrinking_them(tmp_path):
    """A fault makes property specs fail on most examples; shrinking each failure (the property
    fault's run: 16 s, 1.7 s without) cannot turn red into green, so planted-fault runs skip it, as learn mode does."""
    (tmp_path / "tc_hypothesis_probe.py").write_text(HYPOTHESIS_PROBE, encoding="utf-8")
    env = os.environ | {"PYTHONPATH": str(tmp_path)}

    def phases(*mutant):
        out = forked.run(["-m", "pytest", "specs/test_property_broadcasting.py", "-k", "agree_with_numpy", "-s", "-q",
                          "-p", "no:randomly", "-p", "no:cacheprovider", "-p", "tc_hypothesis_probe", *mutant],
                         cwd=catalog.ROOT, env=env, timeout=300)
        line = next(line for line in out.stdout.splitlines() if "HYPOTHESIS" in line)   # after pytest's progress
        return line[line.index("HYPOTHESIS"):], out.returncode

    assert phases("--mutant", "broadcast_helper_off_by_one") == ("HYPOTHESIS ['explicit', 'generate', 'reuse', 'target'] None", 1)
    line, status = phases()
    assert "shrink" in line and status == 0, line


@pytest.mark.parametrize("chosen, expected", [(None, "ci"), ("thorough", "thorough")])
def test_each_fault_runs_under_cis_hypothesis_profile_unless_the_caller_chose_one(monkeypatch, chosen, expected):
    """A kill must not rest on 10 random examples or on this machine's example database."""
    seen = {}

    def fake_run(argv, *, cwd, env, timeout):
        seen.update(env)
        return subprocess.CompletedProcess(argv, 0, "", "")

    if chosen:
        monkeypatch.setenv("HYPOTHESIS_PROFILE", chosen)
    else:
        monkeypatch.delenv("HYPOTHESIS_PROFILE", raising=False)
    monkeypatch.setattr(forked, "run", fake_run)
    fault = mutants.Fault("a_fault", ("tensors.faulted",), lambda: None, "", "tensors")
    mutants_run.run_one(fault, {}, timeout=5)
    assert seen["HYPOTHESIS_PROFILE"] == expected
