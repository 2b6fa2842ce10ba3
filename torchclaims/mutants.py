"""Planted faults: small patches that must turn specs red, and what the runner measures.

A fault lives in ``mutants/<topic>.py``::

    from torchclaims.mutants import fault

    @fault("tensors.view-shares-storage")
    def view_copies():
        '''Tensor.view returns a copy instead of a view.'''
        original = torch.Tensor.view
        torch.Tensor.view = lambda self, *shape: original(self.clone(), *shape)

``pytest specs/ --mutant view_copies`` applies it before collection (the process ends
after the run, so nothing is undone); ``python -m torchclaims mutants`` runs the specs
of each fault's claims once per fault and reports which faults survive and which
checkable claims no fault names (``coverage``).

A fault is killed only when the specs of *every* claim it names go red; the runner loads
this module as a pytest plugin (``-p torchclaims.mutants``) in each run to record which
claims did (``RED_CLAIMS_ENV``).
"""
from __future__ import annotations

import dataclasses
import importlib.util
import os
import pathlib
from typing import Callable, Iterable, Mapping

from .catalog import ROOT
from .files import write_whole
from .links import claim_marks

MUTANTS_DIR = ROOT / "mutants"

# Verdicts whose specs cannot check torch's behaviour on a CPU machine (gpu-only: they skip
# without CUDA; not-checkable and pending: no check exists yet), so no fault is asked of them.
UNCHECKABLE_VERDICTS = ("gpu-only", "not-checkable", "pending")


@dataclasses.dataclass(frozen=True)
class Fault:
    name: str
    claims: tuple[str, ...]
    apply: Callable[[], None]
    doc: str
    topic: str
    source: pathlib.Path | None = None  # the mutants file that defines it


REGISTRY: dict[str, Fault] = {}


def fault(*claims: str):
    """Register the decorated function as a planted fault that should break ``claims``."""
    if not claims:
        raise ValueError("a fault must name the claims it should break")

    def register(fn):
        if fn.__name__ in REGISTRY:
            raise ValueError(f"duplicate fault name {fn.__name__!r}")
        REGISTRY[fn.__name__] = Fault(
            name=fn.__name__, claims=tuple(claims), apply=fn,
            doc=(fn.__doc__ or "").strip(), topic=fn.__module__.rsplit("_", 1)[-1],
            source=pathlib.Path(fn.__code__.co_filename).resolve())
        return fn
    return register


def load_all(directory: pathlib.Path = MUTANTS_DIR) -> dict[str, Fault]:
    """The faults defined by the ``*.py`` files of ``directory`` (each file imported once)."""
    directory = pathlib.Path(directory).resolve()
    loaded = {f.source for f in REGISTRY.values()}
    for path in sorted(directory.glob("*.py")):
        if path.resolve() in loaded:
            continue
        spec = importlib.util.spec_from_file_location(f"torchclaims_mutants_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return {name: f for name, f in REGISTRY.items() if f.source is not None and f.source.parent == directory}


# ---------------------------------------------------------------- claim coverage

@dataclasses.dataclass(frozen=True)
class Coverage:
    checkable: tuple[str, ...]   # claims with a truth spec that can check torch here
    uncovered: tuple[str, ...]   # those that no fault names
    excluded: tuple[str, ...]    # claims with truth specs left out by UNCHECKABLE_VERDICTS

    @property
    def covered(self) -> int:
        return len(self.checkable) - len(self.uncovered)

    @property
    def percent(self) -> float:
        return 100.0 * self.covered / len(self.checkable) if self.checkable else 100.0


def coverage(claims: Mapping, links: Mapping[str, list[tuple[str, bool]]],
             faults: Iterable[Fault], topics: Iterable[str] | None = None) -> Coverage:
    """Which claims with a truth spec (a link without as_written) no fault names.

    ``claims``: id -> catalog.Claim; ``links``: id -> [(spec, as_written)] as the link reader
    returns them.  A claim counts when it has at least one truth spec and its verdict is not
    one of UNCHECKABLE_VERDICTS; ``topics`` narrows to those topics' claims.
    """
    named = {cid for f in faults for cid in f.claims}
    topics = None if topics is None else set(topics)
    with_truth = sorted(cid for cid, specs in links.items()
                        if cid in claims and any(not as_written for _, as_written in specs)
                        and (topics is None or claims[cid].topic in topics))
    checkable = tuple(c for c in with_truth if claims[c].verdict not in UNCHECKABLE_VERDICTS)
    excluded = tuple(c for c in with_truth if claims[c].verdict in UNCHECKABLE_VERDICTS)
    return Coverage(checkable, tuple(c for c in checkable if c not in named), excluded)


# ---------------------------------------------------------------- the runner's probe (a pytest plugin)

RED_CLAIMS_ENV = "TORCHCLAIMS_RED_CLAIMS"


def _claims_of(item) -> set[str]:
    return {link.claim for link in claim_marks(item)}


_state: dict = {}  # session, red claims, wanted claims: set only in a runner's pytest run


def pytest_sessionstart(session):
    _state.clear()
    if os.environ.get(RED_CLAIMS_ENV):
        _state.update(session=session, red=set(), wanted=set(session.config.getoption("--claim")), of={})


def pytest_collection_modifyitems(items):
    if _state:
        _state["of"].update({item.nodeid: _claims_of(item) for item in items})


def pytest_runtest_logreport(report):
    """A failed report (a truth spec red, a strict xfail that passed, an error) makes its
    claims red; once every wanted claim is red the run stops: the fault is killed."""
    if not _state or not report.failed:
        return
    _state["red"] |= _state["of"].get(report.nodeid, set())
    if _state["wanted"] and _state["wanted"] <= _state["red"]:
        _state["session"].shouldfail = "every claim of the fault is red"


def pytest_sessionfinish(session):
    if _state:
        write_whole(os.environ[RED_CLAIMS_ENV], "".join(f"{cid}\n" for cid in sorted(_state["red"])))
    _state.clear()
