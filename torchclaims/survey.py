"""What real tutorials state, counted (issue #41): ``claims/survey/*.toml``, one file per area.

Each file lists the tutorials read (``[[tutorial]]``: address, lang, about) and every checkable
statement they make on the area (``[[statement]]``: says and says_zh in our words, the catalog
``claim`` that checks it or ``why_not``, and ``sources``: "ADDRESS §section" of each tutorial that
states it). The statements are ours; the tutorials' text is never kept. ``coverage`` is the share
of statements the catalog checks, counted once per tutorial that makes the statement.
"""
from __future__ import annotations

import dataclasses
import pathlib
import tomllib

from . import catalog

LANGS = ("zh", "en")


@dataclasses.dataclass(frozen=True)
class Statement:
    area: str
    says: str
    says_zh: str
    claim: str | None
    why_not: str
    sources: tuple[str, ...]

    @property
    def tutorials(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s.split(" §", 1)[0] for s in self.sources))


@dataclasses.dataclass(frozen=True)
class Survey:
    tutorials: dict[str, str]          # address -> lang
    statements: tuple[Statement, ...]
    problems: tuple[str, ...]


def folder() -> pathlib.Path:
    return catalog.claims_dir() / "survey"


def load(where: pathlib.Path | None = None, claims: dict | None = None) -> Survey:
    """Every survey file of ``where`` (default claims/survey/), with what is wrong in them."""
    where = where or folder()
    claims = catalog.load() if claims is None else claims
    tutorials: dict[str, str] = {}
    statements: list[Statement] = []
    problems: list[str] = []
    for path in sorted(where.glob("*.toml")):
        name = f"claims/survey/{path.name}"
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            problems.append(f"{name}: not valid TOML: {exc}")
            continue
        for t in data.get("tutorial", []):
            address, lang = t.get("address", ""), t.get("lang")
            if not catalog.TUTORIAL_RE.match(address) or " §" in address:
                problems.append(f"{name}: tutorial address {address!r} is not an address")
            if lang not in LANGS:
                problems.append(f"{name}: tutorial {address}: lang {lang!r} is not one of {', '.join(LANGS)}")
            if address in tutorials:
                problems.append(f"{name}: tutorial {address} is listed twice")
            tutorials[address] = lang
        for n, s in enumerate(data.get("statement", []), 1):
            here = f"{name}: statement {n}"
            statement = Statement(path.stem, s.get("says", ""), s.get("says_zh", ""), s.get("claim"),
                                  s.get("why_not", ""), tuple(s.get("sources", ())))
            if not statement.says.strip() or not statement.says_zh.strip():
                problems.append(f"{here}: says and says_zh are both needed")
            if statement.claim is not None and statement.claim not in claims:
                problems.append(f"{here}: claim {statement.claim!r} is not in the catalog")
            if statement.claim is None and not statement.why_not.strip():
                problems.append(f"{here}: no claim checks it, and why_not does not say why")
            if not statement.sources:
                problems.append(f"{here}: no sources")
            statements.append(statement)
    for statement in statements:
        for address in statement.tutorials:
            if address not in tutorials:
                problems.append(f"claims/survey/{statement.area}.toml: {statement.says[:60]!r} cites "
                                f"{address}, which no [[tutorial]] lists")
    return Survey(tutorials, tuple(statements), tuple(problems))


@dataclasses.dataclass(frozen=True)
class Coverage:
    statements: int        # distinct statements
    covered: int           # of them, checked by a catalog claim
    mentions: int          # statements counted once per tutorial that makes them
    mentions_covered: int
    tutorials: int
    by_lang: dict[str, int]

    @property
    def share(self) -> float:
        return self.mentions_covered / self.mentions if self.mentions else 0.0


def coverage(survey: Survey) -> Coverage:
    mentions = sum(len(s.tutorials) for s in survey.statements)
    covered = sum(len(s.tutorials) for s in survey.statements if s.claim)
    by_lang = {lang: sum(1 for v in survey.tutorials.values() if v == lang) for lang in LANGS}
    return Coverage(len(survey.statements), sum(1 for s in survey.statements if s.claim), mentions, covered,
                    len(survey.tutorials), by_lang)
