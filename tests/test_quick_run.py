"""What keeps the quick run quick: an expected failure's traceback is rendered only when
someone can read it, and seeding costs what seeding the generators that exist costs."""
import pytest
import torch

import conftest as project_conftest

from .test_plugin import SPECS, run

pytestmark = pytest.mark.e2e  # pytest runs of the quick run's output


def _call_reports(pytester, *args):
    recorder = pytester.inline_run("-p", "torchclaims.plugin", "-p", "no:randomly", "-p", "no:cacheprovider", *args)
    return {rep.nodeid.rsplit("::", 1)[-1]: rep
            for rep in recorder.getreports("pytest_runtest_logreport") if rep.when == "call"}


def test_an_xfailed_as_written_spec_reports_one_line_not_a_rendered_traceback(scratch):
    """Nobody reads an xfailed spec's traceback in a plain run: its report carries one line
    naming the spec's line and the failed check, and it still counts as xfailed."""
    report = _call_reports(scratch)["test_wrong_as_written"]
    assert hasattr(report, "wasxfail") and report.skipped, f"{report!r}: should still be an expected failure"
    text = str(report.longrepr)
    assert isinstance(report.longrepr, str), f"longrepr is a {type(report.longrepr).__name__}, should be one line of text"
    lines = (scratch.path / "test_specs.py").read_text(encoding="utf-8").splitlines()
    line = 1 + next(i for i, source in enumerate(lines) if "[1, 2][-1] == 1" in source)
    assert text.startswith(f"test_specs.py:{line}: AssertionError: the material says the last element is the first"), (
        f"{text!r}: should start with the failing line test_specs.py:{line} and the check's message")
    assert "-v or --as-written" in text, f"{text!r}: should say how to see the traceback"


@pytest.mark.parametrize("option", ["-v", "--runxfail"])
def test_with_v_or_runxfail_the_expected_failure_gets_its_full_traceback(scratch, option):
    """-v (or --runxfail, where it is a plain failure) renders the traceback pytest always rendered."""
    report = _call_reports(scratch, option)["test_wrong_as_written"]
    assert not isinstance(report.longrepr, str), f"{option}: longrepr {report.longrepr!r} should be pytest's rendered traceback"
    assert "assert [1, 2][-1] == 1" in str(report.longrepr), f"{option}: the traceback should show the spec's source"


def test_a_broken_as_written_spec_still_fails_with_its_full_traceback(scratch):
    """A spec failing for a reason it does not declare is a loud failure, traceback included."""
    scratch.makepyfile(test_specs=SPECS.replace("[1, 2][-1] == 1", "one == 1"))
    report = _call_reports(scratch)["test_wrong_as_written"]
    assert report.failed and not hasattr(report, "wasxfail"), f"{report!r}: a broken spec must fail"
    assert "NameError" in str(report.longrepr) and "one == 1" in str(report.longrepr), str(report.longrepr)


def test_as_written_mode_shows_the_traceback_of_the_materials_statement(scratch):
    """--as-written runs the statements as plain tests: their failures print the source line."""
    result = run(scratch, "--as-written")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.re_match_lines([r">\s+assert \[1, 2\]\[-1\] == 1", r"E\s+AssertionError: the material says"])


def test_without_an_accelerator_the_seed_goes_to_the_cpu_generator_alone():
    """torch.manual_seed queues a seed (and a captured stack) for every lazy backend; with
    none present the guard seeds the CPU generator, which is all torch.manual_seed changes here."""
    if project_conftest._has_accelerator():
        assert project_conftest.seed_torch is torch.manual_seed, "with an accelerator every device must be seeded"
        return
    assert project_conftest.seed_torch == torch.default_generator.manual_seed, project_conftest.seed_torch
    state = torch.random.get_rng_state()
    try:
        project_conftest.seed_torch(1234)
        ours = torch.rand(4)
        torch.manual_seed(1234)
        assert torch.equal(ours, torch.rand(4)), "seed_torch(1234) and torch.manual_seed(1234) drew different numbers"
    finally:
        torch.random.set_rng_state(state)


def test_the_longest_tests_go_first_and_the_others_keep_their_order():
    """conftest.LONGEST_FIRST: under xdist a long test drawn last runs alone at the end of make test."""
    class Item:
        def __init__(self, nodeid):
            self.nodeid = nodeid

    class Config:
        def getoption(self, name):
            return False

    meta, isolation = project_conftest.LONGEST_FIRST[0] + "[x]", project_conftest.LONGEST_FIRST[-2] + "_x"
    items = [Item("specs/test_a.py::test_1"), Item(isolation), Item("specs/test_b.py::test_2"), Item(meta),
             Item("tests/test_c.py::test_3")]
    project_conftest.pytest_collection_modifyitems(Config(), items)
    assert [i.nodeid for i in items] == [meta, isolation, "specs/test_a.py::test_1", "specs/test_b.py::test_2",
                                         "tests/test_c.py::test_3"], [i.nodeid for i in items]


def test_what_collection_imported_is_frozen_and_what_a_test_makes_is_still_collected():
    """conftest freezes the objects alive after collection (gc.freeze), so full collections during
    the run walk only what the tests make; garbage a test makes, cycles included, is still freed."""
    import gc
    import weakref
    assert gc.get_freeze_count() > 100_000, f"only {gc.get_freeze_count()} objects frozen after collection"

    class Node:
        pass
    a, b = Node(), Node()
    a.other, b.other = b, a
    alive = weakref.ref(a)
    del a, b
    gc.collect()
    assert alive() is None, "a reference cycle made by a test survived gc.collect()"


def test_a_specs_run_uses_one_intra_op_thread_unless_told_otherwise(monkeypatch):
    """A second OpenMP thread only spin-waits on the specs' tiny tensors (a third of the quick
    run's CPU time here): the run sets one; TORCHCLAIMS_THREADS=N sets N; anything else is refused."""
    assert torch.get_num_threads() == int(project_conftest.os.environ.get(project_conftest.THREADS_ENV, "1"))
    monkeypatch.setenv(project_conftest.THREADS_ENV, "3")
    assert project_conftest.spec_threads() == 3
    for bad in ("0", "two", "-1", ""):
        monkeypatch.setenv(project_conftest.THREADS_ENV, bad)
        with pytest.raises(pytest.UsageError, match="whole number of threads"):
            project_conftest.spec_threads()
