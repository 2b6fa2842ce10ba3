"""The claim catalog: TOML files under ``claims/``, one per topic, loaded and validated.

Each ``[[claim]]`` entry is one testable statement of the material.  The id is the
link between catalog, spec, report and learner hint; it never changes once published.
"""
from __future__ import annotations

import dataclasses
import difflib
import json
import os
import pathlib
import re
import tomllib

from . import clauses as clause_data, strings
from .errors import UsageError
from .files import write_whole

ROOT = pathlib.Path(__file__).resolve().parent.parent
CLAIMS_DIR = ROOT / "claims"


def claims_dir() -> pathlib.Path:
    """``claims/``, or the folder TORCHCLAIMS_CLAIMS_DIR names (the tooling tests use it)."""
    return pathlib.Path(os.environ.get("TORCHCLAIMS_CLAIMS_DIR") or CLAIMS_DIR)
SEEDS_DIR = (ROOT.parent / "shared" / "seeds")

# The four documents the catalog is built from.  Kept as names so the catalog can be
# validated on a machine that does not have the seed texts (CI clones only this repo).
SEED_FILES = (  # what each one is: DOCUMENTS below
    "000_9a03721c87560f23.txt",
    "002_015987172f286748.txt",
    "003_cc3cb04f54b5f923.txt",
    "004_9d58428a819b84da.txt",
)



@dataclasses.dataclass(frozen=True)
class Document:
    """One source document of the material: its number (the seed file's prefix), what kind of
    document it is and its title, in English and Chinese (our description, not the document's words)."""
    file: str
    kind: str
    kind_zh: str

    @property
    def number(self) -> str:
        return self.file.split("_", 1)[0]

    def name(self, lang: str = "en") -> str:
        return self.kind_zh if lang == "zh" else self.kind


# What each seed file is, read from its first lines.  000 and 004 are two different
# write-ups of the same book.
DOCUMENTS = {d.file: d for d in (
    Document("000_9a03721c87560f23.txt",
             "a digest of the book Python Deep Learning: Based on PyTorch (China Machine Press, 2019)",
             "《Python深度学习：基于PyTorch》（机械工业出版社，2019）一书的读书笔记"),
    Document("002_015987172f286748.txt",
             "a blog post: a practitioner's learning roadmap for PyTorch",
             "一篇博客文章：一位从业者的 PyTorch 学习路线"),
    Document("003_cc3cb04f54b5f923.txt",
             "a digest of chapter 6 (PyTorch basics) of the book Deep Learning with PyTorch: "
             "Computer Vision in Practice",
             "《深度学习之PyTorch实战计算机视觉》第 6 章（PyTorch 基础）的读书笔记"),
    Document("004_9d58428a819b84da.txt",
             "a study note on the book Python Deep Learning: Based on PyTorch, from NumPy to autograd",
             "《Python深度学习：基于PyTorch》一书的学习笔记（从 NumPy 到自动求导）"),
)}


def _split_source(source: str) -> tuple[str, str]:
    match = SOURCE_RE.match(source) or TUTORIAL_RE.match(source)
    if not match:
        return source, ""
    return match["file"], match["section"] or ""


def is_tutorial(source: str) -> bool:
    """A source that is a tutorial from the wider world (its address), not one of the four documents."""
    return bool(TUTORIAL_RE.match(source))


def source_label(source: str, lang: str = "en", with_file: bool = False) -> str:
    """A source as a reader recognises it: "003, a digest of chapter 6 of the book ..., §3.1";
    with ``with_file`` the seed file name follows in brackets, for reference."""
    file, section = _split_source(source)
    doc = DOCUMENTS.get(file)
    if doc is None:
        return source
    sep = "，" if lang == "zh" else ", "
    label = f"{doc.number}{sep}{doc.name(lang)}" + (f"{sep}§{section}" if section else "")
    return label + (f" [{file}]" if with_file else "")


def source_short(source: str) -> str:
    """The short form for tables: "003 §3.1"."""
    file, section = _split_source(source)
    doc = DOCUMENTS.get(file)
    return f"{doc.number} §{section}" if doc and section else source


def suggest(name: str, candidates, n: int = 3) -> list[str]:
    """The nearest matches of a mistyped claim id or topic (difflib), best first."""
    candidates = list(candidates)
    close = difflib.get_close_matches(name, candidates, n=n, cutoff=0.6)
    if not close and "." in name:  # a mistyped slug under a right topic: compare the slugs alone
        topic, slug = name.split(".", 1)
        same = {c.split(".", 1)[1]: c for c in candidates if c.startswith(topic + ".")}
        close = [same[s] for s in difflib.get_close_matches(slug, list(same), n=n, cutoff=0.5)]
    return close


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
    "differs_from",  # {other claim id = why}: a sibling on the same subject whose verdict may change elsewhere
    "find",      # the claim finder's cues: [claim.find] subject, says, unless, negated, contrary (Cues below)
    "examples",  # [claim.examples] asserts, denies, near: sentences run as the finder's tests (Examples below)
    "clause",    # [[claim.clause]] the truth's factual clauses, each with its specs or a ref (clauses.py)
)
# Which benchmark measures a claim is not a catalog field: the benchmark's own ``claim``
# marker says it (links.bench_links reads it).
ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*\.[a-z0-9]+(?:-[a-z0-9]+)*$")
SOURCE_RE = re.compile(r"^(?P<file>\S+\.txt) §(?P<section>\d+(?:\.\d+)*)$")
# A claim the wider world makes (issue #41) cites the tutorials that make it: "ADDRESS §section",
# the section as the tutorial titles it (optional).
TUTORIAL_RE = re.compile(r"^(?P<file>https?://\S+)(?: §(?P<section>\S.*))?$")


@dataclasses.dataclass(frozen=True)
class Cues:
    """How the claim finder (torchclaims/finder.py) recognises a passage that makes this claim, in
    any document: reviewed data of the entry (``[claim.find]``), in both languages.

    - ``subject``: phrases naming what the claim is about (API names, terms); a passage must have one.
    - ``says``: groups of phrases; the passage states the claim when every group has one of them.
    - ``unless``: phrases that show the passage is about something else (a sibling claim).
    - ``negated``: ``says`` is itself a negation ("is not", "不会"): a passage that states the groups
      without a negation then denies the claim.
    - ``contrary``: phrases that, in a passage about the subject, state the opposite of ``says``
      ("makes a copy" against "shares memory").
    - ``half``: for a compound claim, the (0-based) ``says`` groups that, with the subject, state
      its main half on their own ("view shares memory" of "view only rewrites size and stride and
      never touches the storage").
    A phrase with CJK characters matches ignoring white space; a Latin phrase matches whole words,
    case-folded, with ``_``, ``-`` and a space alike, and a trailing ``*`` matches any ending."""
    subject: tuple[str, ...]
    says: tuple[tuple[str, ...], ...]
    unless: tuple[str, ...] = ()
    negated: bool = False
    contrary: tuple[str, ...] = ()
    half: tuple[int, ...] = ()


FIND_KEYS = {"subject", "says", "unless", "negated", "contrary", "half"}


@dataclasses.dataclass(frozen=True)
class Examples:
    """Sentences in our own words, English and Chinese, that the claim finder is tested on
    (``[claim.examples]``): each ``asserts`` sentence must be marked as asserting the claim, each
    ``denies`` one as denying it (where the claim is right, these are its myths), and no ``near``
    sentence (the same subject, another fact) may be marked as making it."""
    asserts: tuple[str, ...]
    denies: tuple[str, ...]
    near: tuple[str, ...]


EXAMPLE_KINDS = ("asserts", "denies", "near")


def _check_examples(examples, here: str) -> list[str]:
    if not isinstance(examples, dict):
        return [f"{here}: examples must be a table [claim.examples]"]
    problems = [f"{here}: examples has an unknown key {k!r}; one of {list(EXAMPLE_KINDS)}"
                for k in examples if k not in EXAMPLE_KINDS]
    for kind in EXAMPLE_KINDS:
        value = examples.get(kind)
        if not (isinstance(value, list) and value and all(isinstance(v, str) and v.strip() for v in value)):
            problems.append(f"{here}: examples.{kind} must be a non-empty list of sentences")
    return problems


def _check_find(find, here: str) -> list[str]:
    if not isinstance(find, dict):
        return [f"{here}: find must be a table [claim.find]"]
    problems = [f"{here}: find has an unknown key {k!r}; one of {sorted(FIND_KEYS)}" for k in find if k not in FIND_KEYS]
    def phrases(value) -> bool:
        return isinstance(value, list) and bool(value) and all(isinstance(v, str) and v.strip() for v in value)
    if not phrases(find.get("subject")):
        problems.append(f"{here}: find.subject must be a non-empty list of phrases")
    says = find.get("says", [])
    if not (isinstance(says, list) and all(phrases(group) for group in says)):
        problems.append(f"{here}: find.says must be a list of non-empty lists of phrases")
    for key in ("unless", "contrary"):
        if key in find and not phrases(find[key]):
            problems.append(f"{here}: find.{key} must be a non-empty list of phrases")
    half = find.get("half", [])
    if not (isinstance(half, list) and all(isinstance(i, int) and 0 <= i < len(says) for i in half)):
        problems.append(f"{here}: find.half must list indices of find.says groups (0 to {len(says) - 1})")
    if not isinstance(find.get("negated", False), bool):
        problems.append(f"{here}: find.negated must be true or false")
    return problems


def _cues(find: dict | None) -> Cues | None:
    if not find:
        return None
    return Cues(subject=tuple(find["subject"]), says=tuple(tuple(g) for g in find.get("says", [])),
                unless=tuple(find.get("unless", ())), negated=bool(find.get("negated", False)),
                contrary=tuple(find.get("contrary", ())), half=tuple(find.get("half", ())))


def _examples(examples: dict | None) -> Examples | None:
    if not examples:
        return None
    return Examples(*(tuple(s.strip() for s in examples[kind]) for kind in EXAMPLE_KINDS))


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
    # (sibling id, why the two verdicts may differ): claims on the same subject whose verdicts
    # change at different releases say why (lint's siblings-disagree rule asks for it).
    differs_from: tuple[tuple[str, str], ...] = ()
    find: Cues | None = None
    examples: Examples | None = None
    # the truth's factual clauses, each with its evidence (torchclaims/clauses.py)
    clauses: tuple[clause_data.Clause, ...] = ()

    def differs_reason(self, other: str) -> str | None:
        """Why this claim's verdict may differ from the sibling ``other``'s, or None."""
        return dict(self.differs_from).get(other)

    def text(self, field: str, lang: str = "en") -> str:
        """``says`` or ``truth`` in the requested language."""
        return getattr(self, f"{field}_zh" if lang == "zh" else field)

    @property
    def source_text(self) -> str:
        return "; ".join(self.source)

    @property
    def seed_sources(self) -> tuple[str, ...]:
        """The sources among the four documents (the ones anchors place)."""
        return tuple(s for s in self.source if not is_tutorial(s))

    @property
    def tutorials(self) -> tuple[str, ...]:
        """The addresses of the tutorials that make the claim (a claim of the wider world), in order."""
        return tuple(dict.fromkeys(_split_source(s)[0] for s in self.source if is_tutorial(s)))

    def tutorials_label(self, lang: str = "en", with_addresses: bool = True) -> str:
        """"found in 3 tutorials: ADDRESS, ADDRESS, ADDRESS" (empty for a claim of the four documents)."""
        if not self.tutorials:
            return ""
        head = strings.text(lang, "found_in_tutorials", n=len(self.tutorials))
        if not with_addresses:
            return head
        return head + ("：" if lang == "zh" else ": ") + ", ".join(self.tutorials)

    def source_labels(self, lang: str = "en", with_file: bool = False) -> str:
        """Every source, named (see ``source_label``), the sections of one document together;
        the tutorials of a claim of the wider world as "found in N tutorials: ..."."""
        by_file: dict[str, list[str]] = {}
        for source in self.seed_sources:
            file, section = _split_source(source)
            by_file.setdefault(file, []).append(section)
        sep = "，" if lang == "zh" else ", "
        labels = []
        for file, sections in by_file.items():
            label = source_label(f"{file} §{sections[0]}" if sections[0] else file, lang, with_file=False)
            if sections[0] and file in DOCUMENTS:
                label += "".join(f"{sep}§{section}" for section in sections[1:])
            labels.append(label + (f" [{file}]" if with_file and file in DOCUMENTS else ""))
        if self.tutorials:
            labels.append(self.tutorials_label(lang))
        return "; ".join(labels)

    def source_brief(self, lang: str = "en") -> str:
        """The sources for a table, sections grouped by document: "004 §1 §3.1; 002 §2.1";
        a claim's tutorials as "found in N tutorials"."""
        by_doc: dict[str, list[str]] = {}
        for source in self.seed_sources:
            number, _, section = source_short(source).partition(" ")
            by_doc.setdefault(number, []).append(section)
        parts = [" ".join([number, *filter(None, sections)]) for number, sections in by_doc.items()]
        if self.tutorials:
            parts.append(self.tutorials_label(lang, with_addresses=False))
        return "; ".join(parts)

    @property
    def source_short(self) -> str:
        return self.source_brief("en")


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
        if isinstance(source, str) and TUTORIAL_RE.match(source):
            continue
        if not match:
            problems.append(f"{here}: source {source!r} must read 'SEEDFILE.txt §N.N' or 'https://... §section'")
        elif match["file"] not in SEED_FILES:
            problems.append(f"{here}: source {source!r} names no seed file")
    for field in ("says", "says_zh", "truth", "truth_zh"):
        if field in entry and not (isinstance(entry[field], str) and entry[field].strip()):
            problems.append(f"{here}: {field} must be a non-empty string")
    if entry.get("verdict") == "version-dependent" and "versions" not in entry:
        problems.append(f"{here}: a version-dependent claim needs 'versions' (where the material holds)")
    if "find" in entry:
        problems += _check_find(entry["find"], here)
    if "examples" in entry:
        problems += _check_examples(entry["examples"], here)
    if "clause" in entry:
        problems += clause_data.check_shape(entry["clause"], here)
    if "differs_from" in entry:
        notes = entry["differs_from"]
        if not isinstance(notes, dict) or not notes:
            problems.append(f"{here}: differs_from must be a table {{\"other.claim-id\" = \"why they differ\"}}")
        else:
            for other, why in notes.items():
                if not ID_RE.match(other):
                    problems.append(f"{here}: differs_from key {other!r} is not a claim id")
                elif other == entry.get("id"):
                    problems.append(f"{here}: differs_from names the claim itself")
                if not (isinstance(why, str) and why.strip()):
                    problems.append(f"{here}: differs_from[{other!r}] needs the reason as a non-empty string")
    return problems


_LOADED: dict[tuple, dict[str, Claim]] = {}


def broken(exc: CatalogError) -> str:
    """The one message for a catalog that does not load: every problem, on one line."""
    return strings.text("en", "catalog_broken", why=str(exc).replace("\n", "; "))


def load_for_command(directory: pathlib.Path | str | None = None) -> dict[str, Claim]:
    """``load()`` for a command: a broken catalog is a usage error (one line, exit status 2)."""
    try:
        return load(directory)
    except CatalogError as exc:
        raise UsageError(broken(exc)) from None


def load(directory: pathlib.Path | str | None = None) -> dict[str, Claim]:
    """All claims, by id, in file order.  Raises CatalogError listing every problem.

    Read once per process while no catalog file changes (name, size, modification time): the
    claims are frozen, and each call gets its own dict of them."""
    folder = pathlib.Path(directory) if directory is not None else claims_dir()
    try:
        stamp = (str(folder.resolve()),) + tuple((p.name, p.stat().st_size, p.stat().st_mtime_ns)
                                                 for p in sorted(folder.glob("*.toml")))
    except OSError:
        stamp = None
    if stamp in _LOADED:
        return dict(_LOADED[stamp])
    claims = _load(folder)
    if stamp is not None:
        _LOADED.clear()
        _LOADED[stamp] = claims
    return dict(claims)


PARSED = ROOT / "build" / "cache" / "toml"   # build/ is ignored by git


def parse_toml(path: pathlib.Path) -> dict:
    """A catalog file's TOML. The project's own catalog and anchor files (claims/*.toml,
    claims/anchors/*.toml) are kept as JSON in
    build/cache/ under their size and modification time: tomllib is pure Python and took a third of
    a second for the catalog, JSON a twentieth. A read-only checkout, a catalog elsewhere (a test's
    planted one) or a value JSON cannot hold is parsed each time."""
    text = path.read_text(encoding="utf-8")
    folder = path.resolve().parent
    if folder not in (CLAIMS_DIR.resolve(), (CLAIMS_DIR / "anchors").resolve()):
        return tomllib.loads(text)
    stem = path.stem if folder == CLAIMS_DIR.resolve() else f"anchors+{path.stem}"
    stat = path.stat()
    cached = PARSED / f"{stem}-{stat.st_size}-{stat.st_mtime_ns}.json"
    try:
        return json.loads(cached.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    data = tomllib.loads(text)
    try:
        PARSED.mkdir(parents=True, exist_ok=True)
        for older in PARSED.glob(f"{stem}-*.json"):
            older.unlink()   # the file's earlier versions
        write_whole(cached, json.dumps(data, ensure_ascii=False))
    except (OSError, TypeError, ValueError):
        pass
    return data


def _load(folder: pathlib.Path) -> dict[str, Claim]:
    problems: list[str] = []
    claims: dict[str, Claim] = {}
    files = sorted(folder.glob("*.toml"))
    if not files:
        raise CatalogError(f"{folder}: no catalog files (*.toml)")
    for path in files:
        topic = path.stem
        try:
            data = parse_toml(path)
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
                differs_from=tuple((k, v.strip()) for k, v in entry.get("differs_from", {}).items()),
                find=_cues(entry.get("find")),
                examples=_examples(entry.get("examples")),
                clauses=clause_data.parse(entry.get("clause")),
            )
    for c in claims.values():
        for other, _ in c.differs_from:
            if other not in claims:
                close = suggest(other, claims)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                problems.append(f"claims/{c.topic}.toml: claim {c.id!r}: differs_from names no claim {other!r}{hint}")
    if problems:
        raise CatalogError("\n".join(problems))
    return claims


def topics(claims: dict[str, Claim]) -> list[str]:
    return sorted({c.topic for c in claims.values()})
