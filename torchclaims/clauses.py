"""A truth's clauses and their evidence: what ``check`` refuses and ``show`` lists.

A learner reads the truth, not the spec, so every factual clause of a truth (both languages) is
named in its entry, each with its evidence::

    [[claim.clause]]
    id = "flat-storage"                       # unique within the claim
    en = "a strided tensor is a flat storage plus metadata"     # verbatim part of `truth`
    zh = "带步长的张量就是一块扁平 storage 加上元数据"            # verbatim part of `truth_zh`
    specs = ["test_tensor_is_storage_plus_metadata"]            # truth specs of this claim that assert it
    # or, for context that no spec asserts:
    ref = "https://docs.pytorch.org/docs/stable/storage.html"  # docs, source, release note (or a repo path)

Findings (``clause_findings``), one line each like the other lints:

- ``truth-without-clauses``: a claim with no ``[[claim.clause]]``.
- ``truth-clause-uncovered``: words of ``truth`` (or ``truth_zh``) outside every clause that are
  not frame words (``clause_words.toml``: the verdict's opener, the joints): a fact with no evidence.
- ``truth-clause-not-in-truth``: a clause's ``en``/``zh`` is not a verbatim part of the truth.
- ``truth-clause-without-evidence``: a clause with neither ``specs`` nor ``ref``.
- ``truth-clause-unknown-spec``: a name in ``specs`` that is not a truth spec (or benchmark) linked
  to this claim by its ``claim`` marker.
- ``truth-clause-bad-ref``: a ``ref`` that is neither a web address nor a file of the repository.
- ``truth-clause-generalises-without-spec``: a clause that generalises ("only", "never", "总是"...)
  backed by a reference alone, on a claim that can be checked: try the other ways in a spec.
"""
from __future__ import annotations

import dataclasses
import functools
import pathlib
import re
import tomllib

WORDS_FILE = pathlib.Path(__file__).with_name("clause_words.toml")
CJK = r"\u3400-\u4dbf\u4e00-\u9fff"
ENUMERATOR = re.compile(r"[(（]\s*(?:\d+|[a-z]|[ivx]+)\s*[)）]")


@dataclasses.dataclass(frozen=True)
class Clause:
    id: str
    en: str
    zh: str
    specs: tuple[str, ...] = ()
    ref: str | None = None

    @property
    def is_context(self) -> bool:
        return not self.specs


@functools.cache
def words() -> dict[str, tuple[str, ...]]:
    data = tomllib.loads(WORDS_FILE.read_text(encoding="utf-8"))
    return {key: tuple(sorted(value, key=len, reverse=True)) for key, value in data.items()}


@functools.cache
def _frame_pattern(lang: str) -> re.Pattern:
    phrases = words()[lang]
    if lang == "zh":
        return re.compile("|".join(map(re.escape, phrases)))
    return re.compile(r"(?<![\w.])(?:" + "|".join(map(re.escape, phrases)) + r")(?![\w-])", re.IGNORECASE)


def uncovered(text: str, parts: list[str], lang: str) -> list[str]:
    """The words of ``text`` that no part covers and that are not frame words, in order."""
    rest = text
    for part in sorted((p for p in parts if p), key=len, reverse=True):
        rest = rest.replace(part, "\n")
    rest = ENUMERATOR.sub(" ", rest)
    rest = _frame_pattern(lang).sub(" ", rest)
    return re.findall(rf"[{CJK}]+|[A-Za-z0-9_]+(?:[.'][A-Za-z0-9_]+)*", rest)


def generalises(text: str, lang: str) -> str | None:
    """The first generalising word of a clause ("only", "总是"), or None."""
    for word in words()[f"generalising_{lang}"]:
        if lang == "zh" and word in text:
            return word
        if lang == "en" and re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", text, re.IGNORECASE):
            return word
    return None


CLAUSE_KEYS = {"id", "en", "zh", "specs", "ref"}
CLAUSE_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def check_shape(clauses, here: str) -> list[str]:
    """Schema problems of an entry's ``clause`` list (the catalog loader reports them)."""
    if not isinstance(clauses, list) or not all(isinstance(c, dict) for c in clauses):
        return [f"{here}: clause must be a list of [[claim.clause]] tables"]
    problems, seen = [], set()
    for i, clause in enumerate(clauses):
        at = f"{here}: clause {clause.get('id', i)!r}"
        problems += [f"{at}: unknown key {k!r}; one of {sorted(CLAUSE_KEYS)}" for k in clause if k not in CLAUSE_KEYS]
        if not (isinstance(clause.get("id"), str) and CLAUSE_ID.match(clause["id"])):
            problems.append(f"{at}: id must be a short slug (lowercase words joined by '-')")
        elif clause["id"] in seen:
            problems.append(f"{at}: duplicate clause id")
        seen.add(clause.get("id"))
        for key in ("en", "zh"):
            if not (isinstance(clause.get(key), str) and clause[key].strip()):
                problems.append(f"{at}: {key} must be a non-empty part of the truth")
        specs = clause.get("specs", [])
        if not (isinstance(specs, list) and all(isinstance(s, str) and s.strip() for s in specs)):
            problems.append(f"{at}: specs must be a list of spec names")
        if "ref" in clause and not (isinstance(clause["ref"], str) and clause["ref"].strip()):
            problems.append(f"{at}: ref must be a web address or a file of the repository")
    return problems


def parse(clauses: list[dict] | None) -> tuple[Clause, ...]:
    return tuple(Clause(c["id"], c["en"], c["zh"], tuple(c.get("specs", ())), c.get("ref"))
                 for c in clauses or ())


def _spec_names(names: list[str]) -> set[str]:
    """A spec's full name ("specs/test_x.py::test_y") and its bare function name."""
    return {form for name in names for form in (name, name.rpartition("::")[2])}


def clause_problems(claim, linked: list[str], root: pathlib.Path) -> list[tuple[str, str]]:
    """(kind, message) for each problem of one claim's clauses; ``linked``: the names of the truth
    specs and benchmarks whose marker names the claim."""
    cid, out = claim.id, []
    if not claim.clauses:
        return [("truth-without-clauses", f"{cid}: split its truth into [[claim.clause]] entries, each with "
                 f"specs or a ref")]
    for lang, truth in (("en", claim.truth), ("zh", claim.truth_zh)):
        parts = [getattr(c, lang) for c in claim.clauses]
        for clause in claim.clauses:
            if getattr(clause, lang) not in truth:
                out.append(("truth-clause-not-in-truth",
                            f"{cid}: clause {clause.id!r} ({lang}) is not a verbatim part of its truth"))
        left = uncovered(truth, parts, lang)
        if left:
            shown = ("" if lang == "zh" else " ").join(left)[:80]
            out.append(("truth-clause-uncovered", f"{cid}: its truth{'_zh' if lang == 'zh' else ''} says "
                        f"'{shown}' outside every clause"))
    known = _spec_names(linked)
    for clause in claim.clauses:
        if not clause.specs and not clause.ref:
            out.append(("truth-clause-without-evidence", f"{cid}: clause {clause.id!r} names neither specs nor a ref"))
        for name in clause.specs:
            if name not in known:
                out.append(("truth-clause-unknown-spec", f"{cid}: clause {clause.id!r} names {name!r}, which is "
                            f"no truth spec or benchmark of this claim"))
        if clause.ref and not (re.match(r"^https?://\S+$", clause.ref)
                               or (root / clause.ref.partition("::")[0]).is_file()):
            out.append(("truth-clause-bad-ref", f"{cid}: clause {clause.id!r} ref {clause.ref!r} is neither a web "
                        f"address nor a file of the repository"))
        word = generalises(clause.en, "en") or generalises(clause.zh, "zh")
        if word and clause.is_context and claim.verdict != "not-checkable":
            out.append(("truth-clause-generalises-without-spec",
                        f"{cid}: clause {clause.id!r} says {word!r} on a reference alone: a spec should try "
                        f"the other ways"))
    return out
