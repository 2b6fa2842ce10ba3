"""Planted faults: small patches that must turn specs red.

A fault lives in ``mutants/<topic>.py``::

    from torchclaims.mutants import fault

    @fault("tensors.view-shares-storage")
    def view_copies():
        '''Tensor.view returns a copy instead of a view.'''
        original = torch.Tensor.view
        torch.Tensor.view = lambda self, *shape: original(self.clone(), *shape)

``pytest specs/ --mutant view_copies`` applies it before collection (the process ends
after the run, so nothing is undone); ``python -m torchclaims mutants`` runs the specs
of each fault's claims once per fault and reports which faults survive.
"""
from __future__ import annotations

import dataclasses
import importlib.util
import pathlib
from typing import Callable

from .catalog import ROOT

MUTANTS_DIR = ROOT / "mutants"


@dataclasses.dataclass(frozen=True)
class Fault:
    name: str
    claims: tuple[str, ...]
    apply: Callable[[], None]
    doc: str
    topic: str


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
            doc=(fn.__doc__ or "").strip(), topic=fn.__module__.rsplit("_", 1)[-1])
        return fn
    return register


def load_all(directory: pathlib.Path = MUTANTS_DIR) -> dict[str, Fault]:
    for path in sorted(directory.glob("*.py")):
        name = f"torchclaims_mutants_{path.stem}"
        if any(f.topic == path.stem for f in REGISTRY.values()):
            continue
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return REGISTRY
