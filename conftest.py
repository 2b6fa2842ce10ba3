"""Shared fixtures and guards for specs/, tests/ and benchmarks/.

- every test is seeded and must leave torch's global state as it found it;
- hypothesis profiles: dev (default), ci (derandomized, chosen when CI=true), thorough;
- ``ref`` (provided by torchclaims.plugin): the one seam to the reference code (or a learner's workbook);
- ``device``: cpu, and cuda where present; ``single_process_group``: a one-rank gloo group for DDP specs.
"""
import gc
import os
import pathlib
import random
import sys

import numpy as np
import pytest

try:
    import torch
except ModuleNotFoundError as exc:   # pytest from another Python than the project's venv
    if exc.name != "torch":
        raise
    venv = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".venv", "bin", "activate")
    sys.stderr.write(
        f"error: torch is not installed for the Python that runs pytest ({sys.executable}); "
        + (f"activate the project's venv first: . {os.path.relpath(venv)}  (or run make specs)"
           if os.path.exists(venv) else "run make setup, then . .venv/bin/activate")
        + "  /  这个 pytest 所用的 Python 没有安装 torch：请先激活项目的虚拟环境"
          "（. .venv/bin/activate），或运行 make specs\n")
    raise SystemExit(4) from None   # one line, pytest's usage-error status; no traceback of conftest

from torchclaims.workbook import lessons as learn

pytest_plugins = ["torchclaims.plugin"]

SEED = 20261130


def _has_accelerator() -> bool:
    if hasattr(torch, "accelerator"):  # torch 2.6 and later
        return torch.accelerator.is_available()
    return torch.cuda.is_available() or torch.backends.mps.is_available()


# torch.manual_seed also queues a lazy seed for CUDA, XPU and MTIA, each capturing the caller's
# stack (traceback.format_stack): about 1 ms a call under pytest's deep stacks, paid before every
# test and every hypothesis example. With no accelerator only the CPU generator exists to seed.
seed_torch = torch.manual_seed if _has_accelerator() else torch.default_generator.manual_seed


class _TorchRandom:
    """torch's global generator seen through the random.Random interface hypothesis manages."""

    def getstate(self):
        return torch.random.get_rng_state()

    def setstate(self, state):
        torch.random.set_rng_state(state)

    def seed(self, value):
        seed_torch(value)


BENCHMARKS = pathlib.Path(__file__).resolve().parent / "benchmarks"
THREADS_ENV = "TORCHCLAIMS_THREADS"   # intra-op threads of a specs or tests run (default 1)
_torch_random = _TorchRandom()
_torch_random_holder: list = []
_hypothesis_ready = False


def _configure_hypothesis(config) -> None:
    """Register the profiles, load the active one and hand torch's RNG to hypothesis (once).

    Done before the first spec module that uses hypothesis is imported (a spec's ``settings``
    take the active profile's values when its module is imported). Importing hypothesis costs
    about 1.8 s on 2 cores, so a ``--learn`` run whose lesson specs never use it skips it."""
    global _hypothesis_ready
    if _hypothesis_ready:
        return
    _hypothesis_ready = True
    # register_random (ours below, and trio's, run by hypothesis' entry points on import) runs a full
    # collection and gc.get_referrers over every object the collector tracks: about 0.3 s of CPU with
    # torch's heap in sight. What is imported by now lives as long as the run: freeze it first.
    gc.freeze()
    from hypothesis import HealthCheck, register_random, settings

    # dev is the learner's quick run, rerun often and drawing afresh each time: 10 examples a
    # property (a tenth of hypothesis' default) keeps the 140-odd properties to a few seconds;
    # CI draws 50, derandomized, and thorough 1000.
    settings.register_profile("dev", max_examples=10, deadline=None,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("ci", max_examples=50, deadline=None, derandomize=True,
                              print_blob=True, suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("thorough", max_examples=1000, deadline=None,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE")
                          or ("ci" if os.environ.get("CI", "").lower() == "true" else "dev"))
    # register_random checks, through gc.get_referrers, that something keeps the object alive; a
    # frozen referrer (this module, once gc.freeze has run) is invisible to it, a list made now is
    # not. Nothing is unfrozen: the collection register_random runs skips the frozen heap (torch's).
    global _torch_random_holder
    _torch_random_holder = [_torch_random]
    register_random(_torch_random)
    if config.getoption("--learn") or config.getoption("--mutant"):
        learn.quick_hypothesis()   # red or green is all these runs need: no shrinking


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    """Before hypothesis' own plugin reads ``--hypothesis-profile``; a ``--learn`` run waits for
    the first spec file that uses hypothesis (``pytest_collect_file``). torch and pytest, imported by
    now, live as long as the run: frozen out of the garbage collector's sight from here on (see
    ``pytest_collection_finish``), once hypothesis is set up."""
    if not config.getoption("--learn") or "hypothesis" in sys.modules:
        _configure_hypothesis(config)
    # A run of specs and tests uses one intra-op thread (TORCHCLAIMS_THREADS=N: N), set before any
    # module is collected: their tensors are tiny, and a second OpenMP thread only spin-waits, which
    # cost a third of the quick run's CPU time on this 2-core machine (docs/measurements.md). A run
    # of the benchmarks keeps torch's own count: their figures state the threads they ran on.
    if not any(pathlib.Path(str(arg).split("::")[0]).resolve().is_relative_to(BENCHMARKS) for arg in config.args):
        torch.set_num_threads(spec_threads())
    gc.freeze()


def pytest_collect_file(file_path, parent):
    """A test module about to be imported that uses hypothesis (helper modules are imported by them)."""
    if (not _hypothesis_ready and file_path.suffix == ".py" and file_path.name.startswith(("test_", "bench_"))
            and learn.uses_hypothesis(file_path)):
        _configure_hypothesis(parent.config)


# The longest tests of a full run (``pytest specs/ tests/ --full --durations=30`` on 2 cores: the
# workbook meta check alone takes about 65 s of a worker's 240, the next 25 s), started first: under
# xdist a worker that drew one of them last would run alone at the end. The rest keep their order
# (pytest-randomly's, in CI).
LONGEST_FIRST = (
    "tests/test_workbook.py::test_every_lesson_is_a_real_exercise_run_against_the_workbook_only",
    "tests/test_gpu_check.py::test_a_step_stopped_at_its_limit",
    "tests/test_gpu_check.py::test_the_gpu_script_runs_end_to_end",
    "specs/test_autograd_figures.py::test_inplace_relu_lowers_the_forward_peak",
    "tests/test_workbook.py::test_watch_reruns_on_change",
    "tests/test_workbook.py::test_workbook_learn_goes_on_to_the_next_lesson",
    "tests/test_plugin.py::test_an_interrupted_run_leaves_the_previous_report_intact",
    "tests/test_gpu_check.py::test_gpu_check_itself_stopped",
    "specs/test_compile_inductor.py::test_as_written_batchnorm_eval_mode_fails_in_inductor",
    "specs/test_autograd_figures.py::test_as_written_inplace_relu_saves_12_percent_of_peak_memory",
    "tests/content/test_finder_sentences.py::test_the_cases_miss_only_the_listed_ones",
    "tests/test_lesson_misreadings.py::test_the_reference_passes_the_same_runs",
)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """The longest tests first (a stable sort: every other test keeps its place); --learn keeps
    its lesson order."""
    if config.getoption("--learn"):
        return

    def rank(item):
        return next((i for i, prefix in enumerate(LONGEST_FIRST) if item.nodeid.startswith(prefix)), len(LONGEST_FIRST))

    items.sort(key=rank)


def pytest_collection_finish(session):
    """Everything imported and collected so far (torch, the spec modules, the items) lives until the
    end of the run: move it out of the garbage collector's sight (``gc.freeze``), so that every full
    collection afterwards (pytest's own check for unraisable exceptions, a spec's leak check,
    hypothesis) walks only what the tests create. Objects made by the tests are collected as ever.
    Nothing unfreezes them: pytest's own last collections run after every unconfigure hook, and
    the process ends with the run."""
    gc.freeze()


def spec_threads() -> int:
    wanted = os.environ.get(THREADS_ENV, "1")
    if not wanted.isdigit() or int(wanted) < 1:
        raise pytest.UsageError(f"{THREADS_ENV}={wanted!r}: give a whole number of threads, 1 or more")
    return int(wanted)


def torch_global_state() -> dict:
    """Process-wide torch settings that a test must not leave changed."""
    return {
        "grad mode (torch.is_grad_enabled)": torch.is_grad_enabled(),
        "inference mode": torch.is_inference_mode_enabled(),
        "default dtype": torch.get_default_dtype(),
        "anomaly mode": torch.is_anomaly_enabled(),
        "deterministic algorithms": torch.are_deterministic_algorithms_enabled(),
        # get_default_device appeared in torch 2.3
        "default device": str(torch.get_default_device()) if hasattr(torch, "get_default_device") else "cpu",
        "threads (torch.get_num_threads)": torch.get_num_threads(),
    }


@pytest.fixture(autouse=True)
def _seed_and_guard_torch_state():
    """Seed every RNG, then fail the test if it leaked a change of torch's global state."""
    seed_torch(SEED)
    random.seed(SEED)
    np.random.seed(SEED % 2**32)
    before = torch_global_state()
    yield
    after = torch_global_state()
    leaked = {k: (before[k], after[k]) for k in before if before[k] != after[k]}
    if leaked:
        # Restore first, so one leaking test does not make the next ones fail too.
        torch.set_grad_enabled(before["grad mode (torch.is_grad_enabled)"])
        torch.set_default_dtype(before["default dtype"])
        torch.set_anomaly_enabled(before["anomaly mode"])
        torch.use_deterministic_algorithms(before["deterministic algorithms"])
        torch.set_default_device(None if before["default device"] == "cpu" else before["default device"])
        torch.set_num_threads(before["threads (torch.get_num_threads)"])
        pytest.fail("test leaked torch global state: " + "; ".join(
            f"{k} was {b!r}, left as {a!r}" for k, (b, a) in leaked.items()), pytrace=False)


@pytest.fixture
def fresh_dynamo():
    """Each spec starts and ends with empty Dynamo caches and counters (the compile specs use it)."""
    import torch._dynamo
    import torch._inductor  # for torch._inductor.list_mode_options
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


@pytest.fixture
def one_thread():
    """Run the test on one intra-op thread, restoring torch's count after: tiny ops only pay
    spin-wait overhead for more threads (badly so on a loaded machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


_DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]


@pytest.fixture(params=_DEVICES)
def device(request):
    """Each device that exists here; cuda is skipped with a reason where absent."""
    return torch.device(request.param)


@pytest.fixture
def single_process_group():
    """A one-rank gloo process group on the CPU, torn down afterwards (specs of DDP in one process)."""
    import torch.distributed as dist
    if not dist.is_available() or not dist.is_gloo_available():
        pytest.skip("torch.distributed with gloo is not available")
    dist.init_process_group("gloo", rank=0, world_size=1, store=dist.HashStore())
    try:
        yield
    finally:
        dist.destroy_process_group()
