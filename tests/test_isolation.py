"""The suite's own guards: leaked torch state fails a test, network use fails loudly."""
import time

import pytest

from torchclaims import catalog, forked

from .test_plugin import CATALOG

pytestmark = pytest.mark.e2e  # runs pytest on planted leaky specs in a process of its own


def run_pytest(pytester, *args) -> pytest.RunResult:
    """``pytester.runpytest_subprocess``, forked (torchclaims/forked.py): a process of its own that
    does not import torch again; the test reads only its outcomes and output."""
    began = time.monotonic()
    done = forked.run(["-m", "pytest", f"--basetemp={pytester.path / 'basetemp'}", *args], cwd=pytester.path, timeout=300)
    return pytest.RunResult(done.returncode, done.stdout.splitlines(), done.stderr.splitlines(), time.monotonic() - began)


@pytest.fixture
def guarded(pytester, monkeypatch):
    """A scratch folder with the project's conftest (state guard, seeding) and pytest.ini."""
    claims = pytester.mkdir("claims")
    (claims / "tensors.toml").write_text(CATALOG, encoding="utf-8")
    monkeypatch.setenv("TORCHCLAIMS_CLAIMS_DIR", str(claims))
    pytester.makeconftest((catalog.ROOT / "conftest.py").read_text(encoding="utf-8"))
    pytester.makeini((catalog.ROOT / "pytest.ini").read_text(encoding="utf-8"))
    return pytester


LEAKS = {
    "grad mode": "torch.set_grad_enabled(False)",
    "default dtype": "torch.set_default_dtype(torch.float64)",
    "anomaly mode": "torch.set_anomaly_enabled(True)",
    "deterministic algorithms": "torch.use_deterministic_algorithms(True)",
    "threads": "torch.set_num_threads(torch.get_num_threads() + 1)",   # the run itself sets one
}


def test_a_test_that_leaks_torch_global_state_fails_and_the_next_one_is_clean(guarded):
    """One scratch run (torch imports once): each leaking test errors, the test after it sees defaults."""
    body = ["import torch", "THREADS = torch.get_num_threads()"]
    for i, leak in enumerate(LEAKS.values()):
        body += [f"def test_{i}_leaks():", f"    {leak}",
                 f"def test_{i}_next_sees_defaults():",
                 "    assert torch.is_grad_enabled() and torch.get_default_dtype() == torch.float32",
                 "    assert not torch.is_anomaly_enabled() and not torch.are_deterministic_algorithms_enabled()",
                 "    assert torch.get_num_threads() == THREADS"]
    guarded.makepyfile(test_leak="\n".join(body))
    result = run_pytest(guarded, "-p", "no:cacheprovider", "test_leak.py")
    result.assert_outcomes(passed=2 * len(LEAKS), errors=len(LEAKS))
    for name in LEAKS:
        result.stdout.fnmatch_lines([f"*test leaked torch global state: {name}*"])


def test_a_planted_network_call_fails_with_a_clear_message(guarded):
    guarded.makepyfile(test_net='''
import socket

def test_downloads_something():
    socket.create_connection(("203.0.113.7", 80), timeout=1)

def test_loopback_is_allowed():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    client = socket.create_connection(server.getsockname(), timeout=1)
    client.close()
    server.close()
''')
    result = run_pytest(guarded, "-p", "no:cacheprovider", "test_net.py")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*SocketConnectBlockedError*203.0.113.7*"])


def test_every_test_starts_from_the_same_seed(guarded):
    guarded.makepyfile(test_seed='''
import torch
first = []

def test_one():
    first.append(torch.rand(3))

def test_two():
    assert torch.equal(torch.rand(3), first[0]), "each test must start from the same torch seed"
''')
    run_pytest(guarded, "-p", "no:cacheprovider", "test_seed.py").assert_outcomes(passed=2)


def test_a_worker_the_spec_leaves_running_fails_it_but_an_older_process_does_not(pytester):
    """specs/workers.py: a process the spec started and left alive is an error in teardown; a
    process already running before the spec (Inductor's compile pool on torch 2.1 to 2.3) is not."""
    pytester.makepyfile(workers=(catalog.ROOT / "specs" / "workers.py").read_text(encoding="utf-8"))
    pytester.makepyfile(test_leaks='''
import multiprocessing, time
from workers import workers_allowed_and_reaped  # noqa: F401

POOL = multiprocessing.get_context("fork").Process(target=time.sleep, args=(60,), daemon=True)
POOL.start()


def test_leaves_a_worker():
    multiprocessing.get_context("fork").Process(target=time.sleep, args=(60,), daemon=True).start()


def test_only_the_older_process_is_alive():
    assert POOL.is_alive()
''')
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:socket")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*ERROR at teardown of test_leaves_a_worker*",
                                 "*worker processes left running after the spec*"])


def test_hypothesis_seeds_torchs_generator_for_every_example(guarded):
    """conftest.py hands torch's generator to hypothesis (register_random): each example starts
    from the same torch state, in a run whose fork server froze torch out of the collector's sight too."""
    guarded.makepyfile(test_examples='''
import torch
from hypothesis import given, settings, strategies as st
seen = set()

@settings(max_examples=5, database=None)
@given(st.integers())
def test_draws(i):
    seen.add(torch.rand(1).item())

def test_every_example_drew_the_same():
    assert len(seen) == 1, seen
''')
    run_pytest(guarded, "-p", "no:cacheprovider", "-p", "no:randomly", "test_examples.py").assert_outcomes(passed=2)
