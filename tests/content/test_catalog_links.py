"""The real catalog: it loads, nothing is left pending, and it is in our own words.

Its links to the specs (every verified claim has a truth spec, every wrong one an as-written
spec), the lints and the anchors are `python -m torchclaims check`'s, the first step of `make test`.
"""
import re

import pytest

from torchclaims import catalog


def test_the_catalog_loads_and_is_not_empty():
    assert len(catalog.load()) > 100


def test_no_claim_is_left_pending():
    pending = [c.id for c in catalog.load().values() if c.verdict == "pending"]
    assert not pending, f"{len(pending)} claims still pending: {pending[:10]}"


N = 14
CJK = re.compile(r"[\u4e00-\u9fff\u3000-\u303f\uff00-\uffef]+")


def _grams(text: str) -> set[str]:
    return {run[i:i + N] for run in CJK.findall(text) for i in range(len(run) - N + 1)}


def test_nothing_is_copied_from_the_material():
    seeds = sorted(catalog.SEEDS_DIR.glob("*.txt")) if catalog.SEEDS_DIR.is_dir() else []
    if not seeds:
        pytest.skip(f"the seed documents are not on this machine ({catalog.SEEDS_DIR})")
    material = set().union(*(_grams(p.read_text(encoding="utf-8")) for p in seeds))
    ours = [p for d in ("claims", "specs", "reference_impl", "benchmarks", "torchclaims", "mutants")
            for p in (catalog.ROOT / d).rglob("*") if p.suffix in (".toml", ".py", ".md")]
    copied = [f"{p.relative_to(catalog.ROOT)}: '{sorted(_grams(p.read_text(encoding='utf-8')) & material)[0]}...'"
              for p in ours if _grams(p.read_text(encoding="utf-8")) & material]
    assert not copied, "copies the material word for word:\n" + "\n".join(copied)
