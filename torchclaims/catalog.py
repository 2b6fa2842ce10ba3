"""The claim catalog: TOML files under ``claims/``, one per topic, loaded and validated.

Each ``[[claim]]`` entry is one testable statement of the material.  The id is the
link between catalog, spec, report and learner hint; it never changes once published.
"""
from __future__ import annotations

import dataclasses
import os
import pathlib
import re
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
CLAIMS_DIR = ROOT / "claims"


def claims_dir() -> pathlib.Path:
    """``claims/``, or the folder TORCHCLAIMS_CLAIMS_DIR names (the tooling tests use it)."""
    return pathlib.Path(os.environ.get("TORCHCLAIMS_CLAIMS_DIR") or CLAIMS_DIR)
SEEDS_DIR = (ROOT.parent / "shared" / "seeds")

# The four documents the catalog is built from.  Kept as names so the catalog can be
# validated on a machine that does not have the seed texts (CI clones only this repo).
SEED_FILES = (
    "000_9a03721c87560f23.txt",
    "002_015987172f286748.txt",
    "003_cc3cb04f54b5f923.txt",
    "004_9d58428a819b84da.txt",
)

VERDICTS = (
    "confirmed",          # the material is right on the installed torch
    "refuted",            # the material is wrong
    "partly",             # right in part, wrong in part
    "version-dependent",  # right on some torch versions, wrong on others
    "gpu-only",           # needs CUDA to check; specs are gpu-marked and skip here
    "not-checkable",      # no executable check is possible; truth says why
    "pending",            # not yet verified: its topic issue has not landed
)
# Verdicts for which the material's own statement is (at least partly) wrong, so an
# as-written spec must exist.
NEEDS_AS_WRITTEN = ("refuted", "partly")
# Verdicts that need no truth spec.
NEEDS_NO_SPEC = ("pending", "not-checkable")

REQUIRED = ("id", "source", "topic", "says", "says_zh", "verdict", "truth", "truth_zh")
OPTIONAL = (
    "refs",      # list of citations (PyTorch docs, issues, source) backing the truth
    "versions",  # for version-dependent claims: the torch range where the material holds
    "measure",   # for quantitative claims: the benchmark id that measures it
)
ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*\.[a-z0-9]+(?:-[a-z0-9]+)*$")
SOURCE_RE = re.compile(r"^(?P<file>\S+\.txt) §(?P<section>\d+(?:\.\d+)*)$")


class CatalogError(ValueError):
    """The catalog breaks its schema; the message names the file and the entry."""


@dataclasses.dataclass(frozen=True)
class Claim:
    id: str
    source: tuple[str, ...]
    topic: str
    says: str
    says_zh: str
    verdict: str
    truth: str
    truth_zh: str
    refs: tuple[str, ...] = ()
    versions: str | None = None
    measure: str | None = None

    def text(self, field: str, lang: str = "en") -> str:
        """``says`` or ``truth`` in the requested language."""
        return getattr(self, f"{field}_zh" if lang == "zh" else field)

    @property
    def source_text(self) -> str:
        return "; ".join(self.source)


def _check_entry(entry: dict, where: str, topic: str) -> list[str]:
    problems = []
    name = entry.get("id", "<no id>")
    here = f"{where}: claim {name!r}"
    for field in REQUIRED:
        if field not in entry:
            problems.append(f"{here}: missing field {field!r}")
    for field in entry:
        if field not in REQUIRED and field not in OPTIONAL:
            problems.append(f"{here}: unknown field {field!r}")
    if "id" in entry and not (isinstance(entry["id"], str) and ID_RE.match(entry["id"])):
        problems.append(f"{here}: id must look like 'topic.some-slug'")
    elif "id" in entry and entry["id"].split(".")[0] != entry.get("topic", topic):
        problems.append(f"{here}: id prefix must be its topic {entry.get('topic')!r}")
    if "topic" in entry and entry["topic"] != topic:
        problems.append(f"{here}: topic {entry['topic']!r} in the file for topic {topic!r}")
    if "verdict" in entry and entry["verdict"] not in VERDICTS:
        problems.append(f"{here}: bad verdict {entry['verdict']!r}; one of {', '.join(VERDICTS)}")
    sources = entry.get("source", [])
    sources = [sources] if isinstance(sources, str) else sources
    if "source" in entry and not sources:
        problems.append(f"{here}: empty source")
    for source in sources:
        match = SOURCE_RE.match(source) if isinstance(source, str) else None
        if not match:
            problems.append(f"{here}: source {source!r} must read 'SEEDFILE.txt §N.N'")
        elif match["file"] not in SEED_FILES:
            problems.append(f"{here}: source {source!r} names no seed file")
    for field in ("says", "says_zh", "truth", "truth_zh"):
        if field in entry and not (isinstance(entry[field], str) and entry[field].strip()):
            problems.append(f"{here}: {field} must be a non-empty string")
    if entry.get("verdict") == "version-dependent" and "versions" not in entry:
        problems.append(f"{here}: a version-dependent claim needs 'versions' (where the material holds)")
    return problems


def load(directory: pathlib.Path | str | None = None) -> dict[str, Claim]:
    """All claims, by id, in file order.  Raises CatalogError listing every problem."""
    folder = pathlib.Path(directory) if directory is not None else claims_dir()
    problems: list[str] = []
    claims: dict[str, Claim] = {}
    files = sorted(folder.glob("*.toml"))
    if not files:
        raise CatalogError(f"{folder}: no catalog files (*.toml)")
    for path in files:
        topic = path.stem
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            problems.append(f"{path.name}: not valid TOML: {exc}")
            continue
        unknown = set(data) - {"claim"}
        if unknown:
            problems.append(f"{path.name}: unknown top-level keys {sorted(unknown)}; use [[claim]] tables")
        for entry in data.get("claim", []):
            entry_problems = _check_entry(entry, path.name, topic)
            problems += entry_problems
            if entry_problems:
                continue
            if entry["id"] in claims:
                problems.append(f"{path.name}: claim {entry['id']!r}: duplicate id")
                continue
            source = entry["source"]
            claims[entry["id"]] = Claim(
                id=entry["id"],
                source=(source,) if isinstance(source, str) else tuple(source),
                topic=entry["topic"],
                says=entry["says"].strip(),
                says_zh=entry["says_zh"].strip(),
                verdict=entry["verdict"],
                truth=entry["truth"].strip(),
                truth_zh=entry["truth_zh"].strip(),
                refs=tuple(entry.get("refs", ())),
                versions=entry.get("versions"),
                measure=entry.get("measure"),
            )
    if problems:
        raise CatalogError("\n".join(problems))
    return claims


def topics(claims: dict[str, Claim]) -> list[str]:
    return sorted({c.topic for c in claims.values()})
