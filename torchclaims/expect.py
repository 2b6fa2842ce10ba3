"""What a spec is expected to do on a torch: run, skip (and why) or fail as the material says.

A pure decision, read as a table (pytest's ``skipping.py`` keeps ``evaluate_skip_marks`` /
``evaluate_xfail_marks`` apart from the hooks the same way): ``expectation`` takes the spec's
claim links, the catalog, what the spec's own markers say and the run's options, and returns
frozen data; the plugin's collection hook only applies it.

The rule at the heart of "as written", per claim link (``outcomes.expected`` says what the catalog
expects of the material on this torch):

=================  ==========================  =============================================
link               the material on this torch  the spec
=================  ==========================  =============================================
as written         wrong or partly             xfail (strict): the material is wrong here
as written         right                       runs, and must pass
truth              right, and the claim has    xfail (strict): the truth spec describes the
                   as-written specs or is      other releases
                   refuted/partly/version-
                   dependent
truth              otherwise                   runs, and must pass
either, under      any                         runs (``--as-written`` shows the material's
``--as-written``                               statements failing for real)
=================  ==========================  =============================================

Skips, in this order: each ``needs_torch`` / ``measurable_on`` range the torch is outside, a
``gpu`` spec without CUDA, a heavy spec (slow, compile, distributed, workers) outside ``--full`` or ``-m``.
"""
from __future__ import annotations

import dataclasses

from . import outcomes, strings
from .links import Link
from .versions import in_range, not_applicable_reason, not_measurable_reason

HEAVY_MARKERS = ("slow", "compile", "distributed", "workers")


@dataclasses.dataclass(frozen=True)
class Options:
    """The run: its torch, and the options that change expectations."""
    torch: str
    cuda: bool = False
    as_written_mode: bool = False    # --as-written: no xfail, the material's statements run as they are
    run_heavy: bool = False          # --full, or a -m expression


@dataclasses.dataclass(frozen=True)
class SpecMarks:
    """What a spec's own markers say, besides its claim links."""
    gpu: bool = False
    heavy: tuple[str, ...] = ()                           # of HEAVY_MARKERS, in that order
    needs_torch: tuple[tuple[str, str], ...] = ()         # (range, reason): the API exists only there
    measurable_on: tuple[tuple[str, str], ...] = ()       # (range, reason): measurable only there


@dataclasses.dataclass(frozen=True)
class Expectation:
    """Skip reasons and (strict) xfail reasons, in the order the hook adds them: pytest reports
    the first of each."""
    skips: tuple[str, ...] = ()
    xfails: tuple[str, ...] = ()


def expectation(links: list[Link], claims: dict, marks: SpecMarks, options: Options,
                with_as_written: frozenset[str] | set[str] = frozenset()) -> Expectation:
    """What the spec is expected to do (the module docstring's table); ``with_as_written``: the
    claims that have an as-written spec in this session."""
    skips = [not_applicable_reason(rng, why, options.torch) for rng, why in marks.needs_torch
             if not in_range(rng, options.torch)]
    skips += [not_measurable_reason(rng, why, options.torch) for rng, why in marks.measurable_on
              if not in_range(rng, options.torch)]
    xfails = []
    for link in links:
        claim = claims.get(link.claim)
        if claim is None or options.as_written_mode:
            continue
        want = outcomes.expected(claim, options.torch)
        if link.as_written and want != "right":
            xfails.append(f"[{claim.id}] the material is wrong here: {claim.truth}")
        elif not link.as_written and want == "right" and (
                claim.id in with_as_written or claim.verdict in ("refuted", "partly", "version-dependent")):
            xfails.append(f"[{claim.id}] on torch {options.torch} the material holds (it does on "
                          f"torch{claim.versions}); this truth spec describes the other releases")
    if marks.gpu and not options.cuda:
        skips.append(strings.text("en", "skip_gpu"))
    if marks.heavy and not options.run_heavy:
        skips.append(strings.text("en", "skip_heavy", heavy=marks.heavy[0]))
    return Expectation(tuple(skips), tuple(xfails))
