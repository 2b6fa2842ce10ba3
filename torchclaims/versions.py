"""Torch versions and ranges, read with ``packaging`` (PEP 440: pre-releases and local tags included).

A range is a ``SpecifierSet`` such as ``">=2.6"`` or ``">=2.0,<2.10"``. Local tags (``+cu130``,
``+cpu``) are ignored and a pre-release (``2.6.0a0+git``) counts as its release, so a nightly
of 2.6 is in ``">=2.6"``.
"""
from __future__ import annotations

import functools

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

# The prefix of every skip reason that means "this spec's API does not exist on this torch".
NOT_APPLICABLE = "not applicable on torch"
# The prefix of a skip reason that means "the API exists on this torch, but this runner cannot
# measure it with this spec" (another Python, a device the CPU stands in for only from a later
# release, a spec's own loader): never read as "the API is missing".
NOT_MEASURABLE = "not measurable here on torch"


def parse(version: str) -> Version:
    """'2.14.1+cu130' -> Version('2.14.1'): the release, without local tag or pre-release."""
    try:
        return Version(Version(version).base_version)
    except InvalidVersion:
        raise ValueError(f"not a version: {version!r}") from None


def specifier(spec: str) -> SpecifierSet:
    """A version range, or ValueError naming it."""
    try:
        parsed = SpecifierSet(spec)
    except InvalidSpecifier:
        raise ValueError(f"bad version range {spec!r} (write e.g. '>=2.6' or '>=2.0,<2.10')") from None
    if not str(parsed):
        raise ValueError(f"bad version range {spec!r}: empty")
    return parsed


@functools.cache
def installed_torch() -> Version:
    """The installed torch's version (imported lazily: the report tools run without torch)."""
    import torch
    return parse(torch.__version__)


def in_range(spec: str, version: Version | str) -> bool:
    """Whether ``version`` satisfies ``spec``, e.g. ``in_range(">=2.6,<2.9", "2.7.1")``."""
    if isinstance(version, str):
        version = parse(version)
    return specifier(spec).contains(version, prereleases=True)


def torch_in(spec: str) -> bool:
    """Whether the installed torch satisfies ``spec``: ``torch_in(">=2.6")``."""
    return in_range(spec, installed_torch())


def not_applicable_reason(spec: str, why: str, version: str | None = None) -> str:
    """The skip reason of a spec whose API this torch (``version``, default the installed one)
    lacks (the report reads it as not applicable)."""
    if version is None:
        import torch
        version = torch.__version__
    return f"{NOT_APPLICABLE} {version}: needs torch{spec} ({why})"


def is_not_applicable(reason: str) -> bool:
    return reason.startswith(NOT_APPLICABLE)


def not_measurable_reason(spec: str, why: str, version: str | None = None) -> str:
    """The skip reason of a spec that measures its claim only on torch in ``spec``, although the
    API exists here too (the report reads it as not measurable here)."""
    if version is None:
        import torch
        version = torch.__version__
    return f"{NOT_MEASURABLE} {version}: the spec needs torch{spec} ({why})"


def is_not_measurable(reason: str) -> bool:
    return reason.startswith(NOT_MEASURABLE)


def require_torch(spec: str, why: str) -> None:
    """At the top of a spec module whose API appeared in ``spec``: skip the module as not
    applicable on other versions (``pytest.skip(allow_module_level=True)``)."""
    if not torch_in(spec):
        import pytest
        pytest.skip(not_applicable_reason(spec, why), allow_module_level=True)


def require_measurable(spec: str, why: str) -> None:
    """At the top of a spec module whose API exists on this torch but that can measure it only on
    torch in ``spec`` (``torch.compile`` refusing Python 3.11 on 2.0): skip the module as not
    measurable here on other versions."""
    if not torch_in(spec):
        import pytest
        pytest.skip(not_measurable_reason(spec, why), allow_module_level=True)
