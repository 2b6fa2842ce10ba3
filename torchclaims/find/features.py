"""The named features the decision weighs, for one passage and one candidate claim. Each is a
number in about [0, 1]; decide.py holds the fitted weight of each (weights.json)."""
from __future__ import annotations

import math

from .cues import Hit

# whether the passage makes the claim (as an assertion or a denial)
MAKES = ("cue_full", "cue_share", "cue_subject", "cue_context", "cue_api", "cue_window", "cue_spread",
         "cue_contrary", "sim_best", "sim_top", "sim_rank", "sim_margin", "sim_rivals", "code", "heading",
         "question", "hedge", "short", "long", "full_margin", "share_sim", "cue_elsewhere")
# given that it does: whether it denies it
DENIES = ("rule_turned", "rule_kept", "rule_plain", "parity_rule", "contrary", "sim_denies_margin")


def makes(hit: Hit | None, via_context: bool, width: int, sim: float, rank: int, best_other: float, rivals: int,
          kind: str, question: bool, hedge: bool, chars: int, beaten: bool) -> dict[str, float]:
    full = hit is not None and hit.full
    return {
        "cue_full": float(full),
        "cue_share": (1.0 if hit.half else hit.groups / hit.of) if hit is not None and hit.of else 0.0,
        "cue_subject": float(hit is not None and not via_context),
        "cue_context": float(hit is not None and via_context),
        "cue_api": float(hit is not None and any(c in hit.subject for c in "._(")),
        "cue_window": (width - 1) / 2,
        "cue_spread": min(1.0, hit.spread / 200) if hit is not None else 0.0,
        "cue_contrary": float(hit is not None and hit.contrary != 0),
        "sim_best": sim,
        "sim_top": float(rank == 0),
        "sim_rank": min(1.0, math.log1p(rank) / math.log(50)),
        "sim_margin": max(-0.5, min(0.5, sim - best_other)),
        "sim_rivals": min(1.0, rivals / 5),
        "code": float(kind == "code"),
        "heading": float(kind == "heading"),
        "question": float(question),
        "hedge": float(hedge),
        "short": float(chars < 25),
        "long": min(1.0, chars / 400),
        # interactions: where the cues matched, a rival's similarity counts for less
        "full_margin": float(full) * max(-0.5, min(0.5, sim - best_other)),
        "share_sim": (hit.groups / hit.of if hit is not None and hit.of else 0.0) * sim,
        # another claim's cues all matched here, this one's did not: the passage is about that one
        "cue_elsewhere": float(beaten),
    }


def denies(hit: Hit | None, neg_parity: bool, contrary: int, sim_a: float, sim_d: float, reported: bool,
           negated: bool) -> dict[str, float]:
    """Signed: +1 points to a denial, -1 to an assertion. Where every cue group matched, the cues'
    stance, apart by what it rests on: turned by negations or markers (``rule_turned``), kept by an
    even number of them (``rule_kept``), or nothing found to turn it (``rule_plain``); elsewhere the
    parity of the passage's negations and markers; a contrary phrase; how much closer the passage is
    to the claim's denying examples than to its asserting ones."""
    full = hit is not None and hit.full
    sign = (1.0 if hit.denies else -1.0) if full else 0.0
    parity = (neg_parity != reported) != negated
    return {
        "rule_turned": sign if full and hit.turns % 2 else 0.0,
        "rule_kept": sign if full and hit.turns and not hit.turns % 2 else 0.0,
        "rule_plain": sign if full and not hit.turns else 0.0,
        "parity_rule": 0.0 if full else (1.0 if parity else -1.0),
        "contrary": float(contrary),   # +1 the opposite said plainly, -1 said negated or reported
        "sim_denies_margin": max(-0.5, min(0.5, sim_d - sim_a)),
    }
