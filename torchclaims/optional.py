"""Optional packages: a spec that needs one skips with the command that installs it.

The suite runs beside any torch (``pip install -e .`` keeps the torch you have); the parts that
need more than torch and pytest are extras (pyproject.toml): ``[vision]`` torchvision, ``[captum]``
captum and matplotlib, ``[bench]`` pytest-benchmark, ``[report]`` jsonschema and matplotlib,
``[dev]`` all of them with the tooling. ``need("torchvision")`` at the top of a spec module (or in a
test) imports the module or skips with "needs torchvision (pip install ...)". A package that is
installed but does not import beside this torch (PyPI's torchvision next to a torch it was not
built for raises RuntimeError) skips too, with the error: it cannot be measured here.
"""
from __future__ import annotations

import importlib

# The reason's prefix: the report reads a skip starting with it as "not measurable here".
NEEDS = "needs "

# import name -> (distribution, extra that installs it)
PACKAGES = {
    "torchvision": ("torchvision", "vision"),
    "captum": ("captum", "captum"),
    "matplotlib": ("matplotlib", "captum"),
    "jsonschema": ("jsonschema", "report"),
    "pytest_benchmark": ("pytest-benchmark", "bench"),
    "selenium": ("selenium", "dev"),
    "PIL": ("pillow", "vision"),
}


def install_hint(module: str) -> str:
    """'needs torchvision (pip install torchvision; torchclaims' extra "vision" has it)'.

    No square brackets: the scoreboard renders reasons with rich, which reads them as markup."""
    top = module.split(".")[0]
    dist, extra = PACKAGES.get(top, (top, "dev"))
    return f'{NEEDS}{dist} (pip install {dist}; torchclaims\' extra "{extra}" has it)'


def missing_reason(module: str) -> str | None:
    """None when ``module`` imports; else the skip reason (not installed, or broken beside this torch)."""
    try:
        importlib.import_module(module)
    except ModuleNotFoundError:
        return install_hint(module)
    except Exception as exc:  # installed, but built for another torch
        first = (str(exc).splitlines() or [""])[0][:160]
        return f"{NEEDS}a {module.split('.')[0]} that imports beside this torch ({type(exc).__name__}: {first})"
    return None


def need(module: str):
    """The imported module, or a skip (module level or inside a test) with its install hint."""
    import pytest
    if reason := missing_reason(module):
        pytest.skip(reason, allow_module_level=True)
    return importlib.import_module(module)
