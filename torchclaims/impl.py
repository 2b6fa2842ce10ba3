"""The one seam between specs and the reference code.

Specs never ``import reference_impl``; they take the ``ref`` fixture, which is an
:class:`Impl`.  ``ref.strides`` imports ``<root>/strides.py`` from the configured root:
``reference_impl/`` by default, or a learner's workbook (``--impl DIR`` or the
``TORCHCLAIMS_IMPL`` environment variable).
"""
from __future__ import annotations

import importlib.util
import pathlib
import sys
import types

from .catalog import ROOT

DEFAULT_ROOT = ROOT / "reference_impl"
ENV_VAR = "TORCHCLAIMS_IMPL"


class ImplError(AttributeError, LookupError):
    """A missing implementation folder or module (an AttributeError, so getattr(ref, x, default) works)."""


class Impl:
    """Lazy access to the modules of one implementation root."""

    def __init__(self, root: pathlib.Path | str = DEFAULT_ROOT):
        self.root = pathlib.Path(root).resolve()
        if not self.root.is_dir():
            raise ImplError(f"implementation folder {self.root} does not exist")
        # A distinct package name per root, so a workbook never shadows reference_impl.
        self.package = "reference_impl" if self.root == DEFAULT_ROOT.resolve() else "torchclaims_workbook"
        self._modules: dict[str, types.ModuleType] = {}

    @property
    def is_reference(self) -> bool:
        return self.package == "reference_impl"

    def _ensure_package(self) -> None:
        if self.package in sys.modules:
            return
        init = self.root / "__init__.py"
        spec = importlib.util.spec_from_file_location(
            self.package, init, submodule_search_locations=[str(self.root)])
        module = importlib.util.module_from_spec(spec)
        sys.modules[self.package] = module
        spec.loader.exec_module(module)

    def __getattr__(self, name: str) -> types.ModuleType:
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in self._modules:
            if not (self.root / f"{name}.py").is_file():
                raise ImplError(f"{self.root} has no module {name}.py")
            self._ensure_package()
            self._modules[name] = importlib.import_module(f"{self.package}.{name}")
        return self._modules[name]

    def __repr__(self) -> str:
        return f"Impl({str(self.root)!r})"
