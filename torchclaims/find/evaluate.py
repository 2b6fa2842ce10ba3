"""``python -m torchclaims finder-eval``: how well the claim finder does, measured.

Two measurements:
- ``--set DIR`` (default ``tests/finder_set/``): a labelled set of documents (``DIR/docs/``) and
  their passages (``DIR/labels.toml``: document, claim, stance, passage, start, end). Precision
  is the share of the finder's default marks (confidence >= finder.SHOWN, stance asserts or
  denies) that sit on a labelled passage making that claim (the spans overlap, with one sentence
  of slack on each side); recall the share of labelled asserting or denying passages that such a
  mark finds; stance accuracy the share of right marks whose stance is the label's.
- ``--seeds``: the four documents with their anchors set aside: the share of anchored claims the
  finder finds at their anchors (a mark of that claim overlapping the anchor, one sentence of slack).

``--claim ID`` prints, for one claim, its cues and every mark and miss with the cues that matched.

``--examples`` runs the sentence cases: every claim's ``[claim.examples]`` (an asserting sentence
must be marked as asserting the claim, a denying one as denying it, a near one not marked as the
claim at all) and ``tests/content/plain_statements.toml`` (one plain sentence per claim the README
and the workbook name, each way); it prints the share that pass by kind, and with
``--misses FILE`` writes the cases that fail (tests/content/finder_known_misses.toml is that list:
a test fails on a new miss and on a listed case that passes now).

``--stages`` says, for each labelled asserting or denying passage of the set, the first stage of
the pipeline that lost it: no candidate (the claim was never weighed on the passage: neither its
subject phrase nor the similarity index brought it), weighed but not kept (no mark at all), a mark
under the threshold, a mark without a stance (a mention), or shown, with the right or the wrong
stance. It tells which stage a change should work on before any tuning.

``--speed`` is the finder's benchmark (a command, not a timed test): documents of 100 KB, 1 MB and
10 MB made from the labelled set's Markdown, each read with ``read --format json`` and linted with
``lint`` in a fresh interpreter, five times; it prints the CPU seconds of each (median, min, max)
beyond those of an interpreter that only starts (``python -c pass``), and the 10 MB / 1 MB ratio
(linear time: about 10); and the fitted model's load: the CPU seconds of reading weights.json
(``decide.load``, its modules already imported) and of importing the finder and loading it, beyond
the interpreter's start.
"""
from __future__ import annotations

import dataclasses
import json
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile
import tomllib

from .. import anchors, catalog, documents
from ..errors import UsageError
from ..files import write_whole
from ..segment import Sentences
from . import finder

DEFAULT_SET = catalog.ROOT / "tests" / "finder_set"
PLAIN = catalog.ROOT / "tests" / "content" / "plain_statements.toml"


@dataclasses.dataclass(frozen=True)
class Case:
    """One sentence and what the finder must do with it."""
    source: str       # "examples" or "plain"
    claim: str
    expect: str       # asserts, denies, or near (no shown mark of the claim)
    sentence: str


def sentence_cases(claims: dict, plain: pathlib.Path = PLAIN) -> list[Case]:
    cases = [Case("examples", cid, kind, sentence) for cid, claim in claims.items() if claim.examples
             for kind in catalog.EXAMPLE_KINDS for sentence in getattr(claim.examples, kind)]
    if plain.exists():
        for entry in tomllib.loads(plain.read_text(encoding="utf-8")).get("statement", []):
            cases += [Case("plain", entry["claim"], entry["stance"], entry[lang]) for lang in ("en", "zh")]
    return cases


def passes(the_finder: finder.Finder, case: Case) -> bool:
    marks = [m for m in shown(the_finder.find(case.sentence)) if m.claim == case.claim]
    return not marks if case.expect == "near" else any(m.stance == case.expect for m in marks)


def misses_toml(failing: list[Case]) -> str:
    lines = ["# The sentence cases the finder does not get right yet (python -m torchclaims finder-eval --examples",
             "# --misses FILE writes this list; tests/content/test_finder_sentences.py fails on a case that",
             "# misses and is not listed, and on a listed case that passes now: shrink it, never grow it by hand).", ""]
    for c in failing:
        lines += ["[[miss]]", f"source = {json.dumps(c.source)}", f"claim = {json.dumps(c.claim)}",
                  f"expect = {json.dumps(c.expect)}", f"sentence = {json.dumps(c.sentence, ensure_ascii=False)}", ""]
    return "\n".join(lines)


@dataclasses.dataclass(frozen=True)
class Label:
    document: str
    claim: str
    stance: str
    start: int
    end: int


@dataclasses.dataclass
class Score:
    marks: int = 0
    right: int = 0
    stance_right: int = 0
    labels: int = 0
    found: int = 0
    misses: list = dataclasses.field(default_factory=list)
    by_stance: dict = dataclasses.field(default_factory=dict)   # stance -> [labelled, found]
    wrong: list = dataclasses.field(default_factory=list)
    stance_wrong: list = dataclasses.field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.right / self.marks if self.marks else 0.0

    @property
    def recall(self) -> float:
        return self.found / self.labels if self.labels else 0.0

    @property
    def stance_accuracy(self) -> float:
        return self.stance_right / self.right if self.right else 0.0

    def add(self, other: "Score") -> None:
        for f in ("marks", "right", "stance_right", "labels", "found"):
            setattr(self, f, getattr(self, f) + getattr(other, f))
        self.misses += other.misses
        for k, (n, f) in other.by_stance.items():
            mine = self.by_stance.setdefault(k, [0, 0])
            mine[0] += n
            mine[1] += f
        self.wrong += other.wrong
        self.stance_wrong += other.stance_wrong


def load_labels(folder: pathlib.Path) -> tuple[dict[str, documents.Document], list[Label]]:
    """The set's documents and labels, each label placed in its document's (extracted) text."""
    path = folder / "labels.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{path}: no labels file (a labelled set is DIR/labels.toml and DIR/docs/)") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML ({exc})") from None
    docs: dict[str, documents.Document] = {}
    labels = []
    for entry in data.get("label", []):
        name = entry["document"]
        if name not in docs:
            docs[name] = documents.load(folder / "docs" / name)
        doc = docs[name]
        passage = entry.get("passage", "")
        start, end = entry.get("start"), entry.get("end")
        if doc.extracted or start is None or doc.text[start:end] != passage:
            at = doc.text.find(passage)
            if at < 0:
                raise UsageError(f"{path}: the passage of {entry['claim']} is not in {name}'s text: {passage[:40]!r}")
            start, end = at, at + len(passage)
        labels.append(Label(name, entry["claim"], entry["stance"], start, end))
    for name in sorted(p.name for p in (folder / "docs").iterdir() if p.is_file()):
        if name not in docs:
            docs[name] = documents.load(folder / "docs" / name)
    return docs, labels


def _slack(sentences: Sentences, start: int, end: int) -> tuple[int, int]:
    """A span widened by one sentence on each side."""
    units = sentences.units
    first = next((i for i, u in enumerate(units) if u.end > start), len(units) - 1)
    last = next((i for i in range(len(units) - 1, -1, -1) if units[i].start < end), 0)
    lo = units[max(first - 1, 0)].start if units else start
    hi = units[min(last + 1, len(units) - 1)].end if units else end
    return min(lo, start), max(hi, end)


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def shown(marks: list[finder.Mark], threshold: float = finder.SHOWN) -> list[finder.Mark]:
    """The marks a page shows by default: statements (not mentions) at or above the threshold."""
    return [m for m in marks if m.stance != "mentions" and m.confidence >= threshold]


def score_document(name: str, text: str, marks: list[finder.Mark], labels: list[Label]) -> Score:
    sentences = Sentences(text)
    score = Score()
    made = [lab for lab in labels if lab.stance != "mentions"]
    score.labels = len(made)
    widened = {lab: _slack(sentences, lab.start, lab.end) for lab in labels}
    for m in marks:
        score.marks += 1
        match = [lab for lab in made if lab.claim == m.claim and _overlaps((m.start, m.end), widened[lab])]
        if match:
            score.right += 1
            if any(lab.stance == m.stance for lab in match):
                score.stance_right += 1
            else:
                score.stance_wrong.append((name, m, match[0].stance, text[m.start:m.end]))
        else:
            score.wrong.append((name, m, text[m.start:m.end]))
    for lab in made:
        counts = score.by_stance.setdefault(lab.stance, [0, 0])
        counts[0] += 1
        if any(m.claim == lab.claim and _overlaps((m.start, m.end), widened[lab]) for m in marks):
            score.found += 1
            counts[1] += 1
        else:
            score.misses.append((name, lab, text[lab.start:lab.end]))
    return score


def labelled_claims(folder: pathlib.Path) -> set[str] | None:
    """The claim ids a set's labellers worked from (DIR/claims.txt, one id a line), or None (the
    whole catalog). A claim added to the catalog since was never labelled: its marks are left out."""
    path = folder / "claims.txt"
    if not path.is_file():
        return None
    return {line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}


def evaluate_set(folder: pathlib.Path, the_finder: finder.Finder, threshold: float = finder.SHOWN) -> Score:
    docs, labels = load_labels(folder)
    known = labelled_claims(folder)
    total = Score()
    for name, doc in docs.items():
        marks = [m for m in shown(the_finder.find(doc.text), threshold) if known is None or m.claim in known]
        total.add(score_document(name, doc.text, marks, [lab for lab in labels if lab.document == name]))
    return total


STAGES = ("no candidate", "weighed, not kept", "a mark under the threshold", "a mention, no stance",
          "shown, wrong stance", "shown, right stance")


def stages(folder: pathlib.Path, the_finder: finder.Finder, threshold: float = finder.SHOWN) -> dict[str, dict[str, int]]:
    """Per stance (asserts, denies): how many labelled passages each stage of STAGES lost (the
    first stage that did), the overlap as in score_document (one sentence of slack)."""
    docs, labels = load_labels(folder)
    out = {stance: dict.fromkeys(STAGES, 0) for stance in ("asserts", "denies")}
    for name, doc in docs.items():
        made = [lab for lab in labels if lab.document == name and lab.stance != "mentions"]
        if not made:
            continue
        sentences = Sentences(doc.text)
        candidates = the_finder.candidates(doc.text)
        marks = the_finder.find(doc.text)
        for lab in made:
            span = _slack(sentences, lab.start, lab.end)
            mine = [m for m in marks if m.claim == lab.claim and _overlaps((m.start, m.end), span)]
            shown_ = [m for m in shown(mine, threshold)]
            if shown_:
                stage = STAGES[5] if any(m.stance == lab.stance for m in shown_) else STAGES[4]
            elif any(m.confidence >= threshold for m in mine):
                stage = STAGES[3]
            elif mine:
                stage = STAGES[2]
            elif any(c.claim == lab.claim and _overlaps((c.start, c.end), span) for c in candidates):
                stage = STAGES[1]
            else:
                stage = STAGES[0]
            out[lab.stance][stage] += 1
    return out


def seed_documents() -> list[tuple[str, str, list[Label]]]:
    """The four documents, each with its anchored spans as labels (stance asserts: the material's
    own statements)."""
    found = anchors.load()
    out = []
    for seed in catalog.SEED_FILES:
        path = anchors.seeds_dir() / seed
        if not path.exists():
            raise UsageError(f"{path}: the seed documents are not here (../shared/seeds/ or TORCHCLAIMS_SEEDS_DIR)")
        text = path.read_text(encoding="utf-8")
        placed = anchors.place(text, [a for a in found.anchors if a.document == seed])
        out.append((seed, text, [Label(seed, p.anchor.claim, "asserts", *span) for p in placed.placed for span in p.spans]))
    return out


def evaluate_seeds(the_finder: finder.Finder, threshold: float = finder.SHOWN) -> Score:
    """The four documents, anchors set aside: anchored claims found at their anchors (recall), and
    the finder's marks that sit on an anchor of their claim (precision against the anchors)."""
    total = Score()
    for seed, text, labels in seed_documents():
        marks = shown(the_finder.find(text), threshold)
        score = score_document(seed, text, marks, labels)
        score.stance_right = score.right   # anchors carry no stance
        total.add(score)
    return total


def explain(cid: str, claims: dict, the_finder: finder.Finder) -> list[str]:
    """One claim: its cues, its anchors in the four documents and every mark the finder makes of
    it there (mentions and low confidence included), for the author of its cues."""
    claim = claims[cid]
    lines = [f"{cid} ({claim.verdict}): {claim.says}", f"  {claim.says_zh}", f"  cues: {claim.find}"]
    found = anchors.load()
    for seed in catalog.SEED_FILES:
        path = anchors.seeds_dir() / seed
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8")
        placed = anchors.place(text, [a for a in found.anchors if a.document == seed and a.claim == cid])
        for p in placed.placed:
            start, end = p.spans[0]
            lines.append(f"  anchor {seed[:3]} {start}-{end}: {text[start:end][:160]!r}")
        marks = [m for m in the_finder.find(text) if m.claim == cid]
        for m in marks:
            lines.append(f"  mark   {seed[:3]} {m.start}-{m.end} {m.stance} {m.confidence:.2f}: "
                         f"{text[m.start:m.end][:120]!r} [{m.why}]")
    return lines


def _cpu(argv: list[str]) -> float:
    """CPU seconds (user + system) of one command run as a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


SIZES = ((100_000, "100 KB"), (1_000_000, "1 MB"), (10_000_000, "10 MB"))
# the CPU seconds decide.load() takes in a fresh interpreter, its modules imported first
_LOAD = ("import time; from torchclaims.find import decide; t = time.process_time(); decide.load(); "
         "print(time.process_time() - t)")


def _model_load(python: str) -> float:
    """CPU seconds of loading the fitted model (weights.json) in a fresh interpreter, imports apart."""
    done = subprocess.run([python, "-c", _LOAD], capture_output=True, text=True, check=True)
    return float(done.stdout.split()[-1])


def speed(runs: int = 5, sizes=SIZES) -> list[str]:
    docs = sorted((DEFAULT_SET / "docs").glob("*.md"))
    if not docs:
        raise UsageError(f"{DEFAULT_SET}/docs: no Markdown documents to build the benchmark's inputs from")
    blob = "\n\n".join(p.read_text(encoding="utf-8") for p in docs)
    python = sys.executable
    lines = []
    with tempfile.TemporaryDirectory(prefix="finder-speed-") as tmp:
        base = statistics.median(_cpu([python, "-c", "pass"]) for _ in range(runs))
        lines.append(f"interpreter start: {base:.3f} s CPU (median of {runs}), subtracted below")
        loads = [_model_load(python) for _ in range(runs)]
        imports = [_cpu([python, "-c", "from torchclaims.find import decide; decide.load()"]) - base for _ in range(runs)]
        lines.append(f"{'model load':<18} {'':>6}: {statistics.median(loads):6.3f} s CPU reading weights.json, "
                     f"{statistics.median(imports):.2f} s with the finder's imports (median of {runs})")
        figures = {}
        largest = max(size for size, _ in sizes)
        for size, label in sizes:
            path = pathlib.Path(tmp) / f"doc-{size}.md"
            path.write_text((blob * (size // len(blob) + 1))[:size], encoding="utf-8")
            for name, argv in (("read --format json", ["read", str(path), "--format", "json"]),
                               ("lint", ["lint", str(path)])):
                times = [_cpu([python, "-m", "torchclaims", *argv]) - base
                         for _ in range(runs if size < largest or len(sizes) == 1 else 1)]
                figures[(name, size)] = statistics.median(times)
                lines.append(f"{name:<18} {label:>6}: {statistics.median(times):6.2f} s CPU "
                             f"(min {min(times):.2f}, max {max(times):.2f}, {len(times)} runs)")
        if len(sizes) > 1:
            (big, big_label), (small, small_label) = sizes[-1], sizes[-2]
            for name in ("read --format json", "lint"):
                lines.append(f"{name}: {big_label} / {small_label} = {figures[(name, big)] / figures[(name, small)]:.1f}x")
    return lines


def report(title: str, score: Score) -> str:
    line = (f"{title}: precision {score.precision:.3f} ({score.right}/{score.marks} marks), "
            f"recall {score.recall:.3f} ({score.found}/{score.labels} passages), "
            f"stance accuracy {score.stance_accuracy:.3f} ({score.stance_right}/{score.right})")
    (na, fa), (nd, fd) = score.by_stance.get("asserts", [0, 0]), score.by_stance.get("denies", [0, 0])
    if na and nd:
        line += (f"; asserting passages found {fa}/{na}, denying {fd}/{nd} "
                 f"(a denial found {(fd / nd) / (fa / na) if fa else 0:.2f} times as often)")
    return line


def evaluate(args) -> int:
    """``finder-eval``: the options are torchclaims/commands/finder_eval.py's (``args`` holds them)."""
    if args.speed:
        for line in speed():
            print(line, flush=True)
        return 0
    claims = catalog.load_for_command()
    the_finder = finder.Finder(claims)
    if args.examples:
        cases = sentence_cases(claims)
        failing = [c for c in cases if not passes(the_finder, c)]
        for source in ("examples", "plain"):
            for kind in ("asserts", "denies", "near"):
                n = sum(1 for c in cases if c.source == source and c.expect == kind)
                bad = sum(1 for c in failing if c.source == source and c.expect == kind)
                if n:
                    print(f"{source:<9} {kind:<8} {n - bad:5d} of {n:5d} pass ({(n - bad) / n:.3f})")
        if args.misses:
            write_whole(pathlib.Path(args.misses), misses_toml(failing))
            print(f"wrote {args.misses}: {len(failing)} cases")
        return 0
    if args.claim:
        for cid in args.claim:
            if cid not in claims:
                raise UsageError(f"no claim {cid!r} in the catalog")
            print("\n".join(explain(cid, claims, the_finder)))
        return 0
    folder = pathlib.Path(args.set) if args.set else DEFAULT_SET
    if args.stages:
        table = stages(folder, the_finder, args.threshold)
        print(f"labelled set {folder}: where each asserting or denying passage is lost (threshold {args.threshold})")
        print(f"  {'stage':<28} {'asserts':>8} {'denies':>8}")
        for stage in STAGES:
            print(f"  {stage:<28} {table['asserts'][stage]:>8} {table['denies'][stage]:>8}")
        return 0
    scores = [("labelled set " + str(folder), evaluate_set(folder, the_finder, args.threshold))]
    if args.seeds:
        scores.append(("the four documents at their anchors", evaluate_seeds(the_finder, args.threshold)))
    print(f"{len(the_finder.cues)} of {len(claims)} claims have cues; threshold {args.threshold}")
    for title, score in scores:
        print(report(title, score))
        if args.errors:
            for name, m, passage in score.wrong:
                print(f"  wrong mark  {name}:{m.start} {m.claim} {m.stance} {m.confidence:.2f} {passage[:90]!r} [{m.why}]")
            for name, lab, passage in score.misses:
                print(f"  missed      {name}:{lab.start} {lab.claim} {lab.stance} {passage[:90]!r}")
            for name, m, want, passage in score.stance_wrong:
                print(f"  stance      {name}:{m.start} {m.claim} {m.stance} (label {want}) {passage[:90]!r} [{m.why}]")
    return 0

