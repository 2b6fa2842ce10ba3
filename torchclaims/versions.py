"""Version-aware expectations: where a claim's truth depends on the torch version."""
from __future__ import annotations

import functools
import re


def parse(version: str) -> tuple[int, ...]:
    """'2.14.1+cu130' -> (2, 14, 1); pre-release tags are dropped."""
    numbers = re.match(r"\d+(?:\.\d+)*", version)
    if not numbers:
        raise ValueError(f"not a version: {version!r}")
    parts = tuple(int(p) for p in numbers.group().split("."))
    return parts + (0,) * (3 - len(parts))


@functools.cache
def installed_torch() -> tuple[int, ...]:
    """The installed torch's version (imported lazily: the report tools run without torch)."""
    import torch
    return parse(torch.__version__)


_OPS = {
    ">=": lambda a, b: a >= b, ">": lambda a, b: a > b,
    "<=": lambda a, b: a <= b, "<": lambda a, b: a < b,
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
}


def in_range(spec: str, version: tuple[int, ...] | str) -> bool:
    """Whether ``version`` satisfies ``spec``, e.g. ``">=2.6,<2.9"``."""
    if isinstance(version, str):
        version = parse(version)
    for clause in filter(None, (c.strip() for c in spec.split(","))):
        match = re.fullmatch(r"(>=|<=|==|!=|>|<)\s*(\S+)", clause)
        if not match:
            raise ValueError(f"bad version clause {clause!r} in {spec!r}")
        op, bound = match.groups()
        if not _OPS[op](version, parse(bound)):
            return False
    return True


def torch_in(spec: str) -> bool:
    """Whether the installed torch satisfies ``spec``: ``torch_in(">=2.6")``."""
    return in_range(spec, installed_torch())
