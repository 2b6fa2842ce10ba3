"""The kinds of tooling test (tests/conftest.py): a unit test that starts a process fails and names
the e2e marker, so `make quick` (tests/ -m "not e2e") stays a unit-test run."""
import pytest

PLANTED = '''
import subprocess, sys
import pytest

def test_unmarked_starts_a_process():
    subprocess.run([sys.executable, "-c", "pass"], check=True)

@pytest.mark.e2e
def test_marked_starts_a_process():
    subprocess.run([sys.executable, "-c", "pass"], check=True)

def test_unmarked_forks_a_command():
    from torchclaims import forked
    forked.run(["-m", "site"], cwd=".")

def test_in_process():
    assert sorted([2, 1]) == [1, 2]
'''


@pytest.mark.e2e  # its planted e2e test starts a process
def test_a_unit_test_that_starts_a_process_fails_naming_the_marker(pytester):
    pytester.makeconftest("from tests.conftest import unit_tests_start_no_process  # the fixture under test\n")
    pytester.makeini("[pytest]\nmarkers =\n    e2e: end to end\n")
    pytester.makepyfile(test_planted=PLANTED)
    result = pytester.runpytest("-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(["*test_unmarked_starts_a_process starts a process*mark it @pytest.mark.e2e*"])
    result.stdout.fnmatch_lines(["*test_unmarked_forks_a_command starts a process*'-m', 'site'*mark it @pytest.mark.e2e*"])
    assert "test_marked_starts_a_process" not in "\n".join(line for line in result.outlines if "FAILED" in line)
