"""``python -m torchclaims lint PATH...``: tutorials checked for what they state about PyTorch.

For tutorial authors and their CI. Every document under the paths (``.md``, ``.rst``, ``.txt``,
``.ipynb``, ``.html``; folders are walked, hidden ones skipped) is marked as ``read`` marks it
(the finder, or the anchors for one of the four documents), and each mark is one line in the
compilers' format::

    path:line:col: error: claim-id: the text says <the claim>; on torch 2.14.1: <what is true>

Severities, so that authors can keep it switched on:
- ``error``: the passage asserts a claim the specs refute, or denies one they confirm, on the
  chosen torch, with the finder's confidence at least ERROR_AT and its stance at least SURE_AT sure;
- ``warning``: the same below ERROR_AT; a partly right statement; a version-dependent claim (an
  entry point that moved, a behaviour that changed) stated the old way;
- ``note``: a right statement, or one no spec measured; shown with ``--notes`` only.
The exit status is 1 when there is an error (with ``--fail-on warning``: a warning too), 0
otherwise, 2 on bad input (a file it cannot read is one line on stderr, and the others are still
checked). ``--labels DIR`` measures lint itself on a labelled set (DIR/docs/,
DIR/labels.toml, the finder-eval format): the share of error lines that sit on a labelled passage
stating that claim wrongly, and the share of labelled wrong statements an error line catches.
Lines and columns are 1-based, in the file's text (for a notebook or a web page: in the text
extracted from it, as ``read --format json`` gives it). ``--format sarif``
writes SARIF 2.1.0 with the same levels. The torch judged by is the installed one where the
history has it, else the newest measured, and the summary says which and why.
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import sys

from . import anchors, catalog, documents, find
from .errors import UsageError
from .files import write_whole
from .find import evaluate, marks
from .strings import text, translate, usage_line

ERROR_AT = 0.8    # the confidence an error needs (docs/finder.md: marks at 0.8-0.9 were right 86% of the time)
SURE_AT = 0.8     # and how sure of its stance the finder must be (a flipped stance turns a right statement into an error)
LEVELS = ("error", "warning", "note")


def level(m: marks.Marked, claim: catalog.Claim) -> str:
    """A mark's severity (see the module doc)."""
    if m.verdict == "wrong":
        certain = m.confidence >= ERROR_AT and m.sure >= SURE_AT
        return "error" if certain and claim.verdict != "version-dependent" else "warning"
    return "warning" if m.verdict == "partly" else "note"


def message(m: marks.Marked, claim: catalog.Claim, torch: str | None, lang: str) -> str:
    """One sentence: what the text says, and what is true on the torch judged by."""
    key = "lint:says" if m.stance == "asserts" else "lint:denies"
    return text(lang, key, says=one_line(claim.text("says", lang), 120).rstrip(".。"), torch=torch or "?",
                truth=one_line(claim.text("truth", lang)))


def one_line(truth: str, limit: int = 200) -> str:
    """The first sentence of a truth, on one line, at most ``limit`` characters."""
    flat = " ".join(truth.split())
    first = re.split(r"(?<=[.。])\s", flat, maxsplit=1)[0]
    return first if len(first) <= limit else first[:limit - 1].rstrip() + "…"


def collect(paths: list[str]) -> list[pathlib.Path]:
    """The documents named or found under the paths, in order, each once."""
    out: list[pathlib.Path] = []
    for name in paths:
        path = pathlib.Path(name)
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")) and d != "node_modules")
                out += [pathlib.Path(root) / f for f in sorted(files)
                        if pathlib.Path(f).suffix.lower() in documents.FORMATS and not f.startswith(".")]
        elif path.exists():
            if path.suffix.lower() not in documents.FORMATS:
                kind = f"extension {path.suffix}" if path.suffix else "no extension"
                raise UsageError(text("en", "doc:extension", path=name, kind=kind))
            out.append(path)
        else:
            raise UsageError(text("en", "lint:no_path", path=name))
    return list(dict.fromkeys(out))


def sarif(results: list[tuple[marks.Result, list[marks.Marked]]], claims: dict, torch: str | None, lang: str) -> dict:
    rules = {}
    out = []
    for result, shown in results:
        doc = result.document
        for m in shown:
            claim = claims[m.claim]
            rules.setdefault(m.claim, {
                "id": m.claim, "name": m.claim,
                "shortDescription": {"text": one_line(claim.text("says", lang))},
                "fullDescription": {"text": claim.text("truth", lang)},
                "help": {"text": f"pytest specs/ --claim {m.claim}"}})
            (line, col), (end_line, end_col) = doc.line_col(m.start), doc.line_col(m.end)
            out.append({
                "ruleId": m.claim, "level": level(m, claim),
                "message": {"text": message(m, claim, torch, lang)},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": doc.path.as_posix()},
                    "region": {"startLine": line, "startColumn": col, "endLine": end_line, "endColumn": end_col}}}],
                "properties": {"stance": m.stance, "confidence": round(m.confidence, 3), "how": m.how,
                               "verdict": m.verdict}})
    return {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
            "runs": [{"tool": {"driver": {"name": "torchclaims", "rules": list(rules.values())}},
                      "columnKind": "unicodeCodePoints", "results": out}]}


def lint(args, verdicts) -> int:
    """``lint``: the options are commands/lint.py's (``args`` holds them); ``verdicts`` is
    ``reports.verdicts``, handed down by the command (a view reads no report itself)."""
    measured = verdicts
    if args.labels:
        return score_labels(pathlib.Path(args.labels), args, measured)
    if not 0 <= args.min_confidence <= 1:
        raise UsageError(text("en", "lint:confidence", value=args.min_confidence))
    if args.torch and args.report:
        raise UsageError(text("en", "read:torch_report"))
    paths = collect(args.paths)
    if not paths:
        raise UsageError(text("en", "lint:no_document", paths=" ".join(args.paths)))
    claims = catalog.load_for_command()
    found = anchors.load()
    verdicts = measured(args.report, args.history, args.torch, claims, one_release=True)
    the_finder = find.Finder(claims)
    results = []
    unread = 0
    for path in paths:
        try:
            doc = documents.load(path)
        except UsageError as exc:   # one line for a file it cannot read, and on to the next
            print(text(args.lang, "error_line", message=usage_line(args.lang, str(exc))), file=sys.stderr)
            unread += 1
            continue
        if doc.note:
            print(translate(args.lang, doc.note), file=sys.stderr)
        result = marks.mark(doc, claims, found, verdicts, the_finder)
        shown = [m for m in result.shown(threshold=args.min_confidence)
                 if args.notes or level(m, claims[m.claim]) != "note"]
        results.append((result, shown))
    if not results:
        return 2    # nothing could be read: the lines above said why
    torch = verdicts.get("torch")
    if args.format == "sarif":
        out = json.dumps(sarif(results, claims, torch, args.lang), ensure_ascii=False, indent=1) + "\n"
    else:
        lines = []
        for result, shown in results:
            for m in shown:
                line, col = result.document.line_col(m.start)
                claim = claims[m.claim]
                lines.append(f"{result.document.path}:{line}:{col}: {level(m, claim)}: {m.claim}: "
                             f"{message(m, claim, torch, args.lang)}")
        out = "".join(line + "\n" for line in lines)
    if args.output:
        write_whole(pathlib.Path(args.output), out)
    else:
        sys.stdout.write(out)
    counts = {lv: sum(level(m, claims[m.claim]) == lv for _, shown in results for m in shown) for lv in LEVELS}
    print(text(args.lang, "lint:summary", n=len(paths), errors=counts["error"], warnings=counts["warning"],
               torch=torch or "?", why=text(args.lang, f"lint:why_{verdicts.get('why', 'newest')}",
                                            installed=verdicts.get("installed") or "?")), file=sys.stderr)
    failing = LEVELS[:LEVELS.index(args.fail_on) + 1]
    if unread:
        return 2    # bad input, after every file that could be read was checked
    return 1 if any(counts[lv] for lv in failing) else 0


def score_labels(folder: pathlib.Path, args, measured) -> int:
    """Lint's error lines against a labelled set: a labelled passage is a wrong statement when it
    asserts a claim whose measured verdict on the torch judged by is wrong, or denies one that is
    right; an error line is right when it overlaps a wrong statement of its claim."""
    docs, labels = evaluate.load_labels(folder)
    claims = catalog.load()
    verdicts = measured(args.report, args.history, args.torch, claims, one_release=True)
    the_finder = find.Finder(claims)
    known = evaluate.labelled_claims(folder)   # claims added since the set was labelled: not counted
    errors = right = 0
    wrong_labels, caught = [], set()
    for name, doc in docs.items():
        doc_labels = [lab for lab in labels if lab.document == name]
        wrong = [lab for lab in doc_labels
                 if find.verdict(lab.stance, marks.material(verdicts, lab.claim)) == "wrong"]
        wrong_labels += wrong
        for m in marks.mark(doc, claims, {}, verdicts, the_finder, use_anchors=False).shown():
            if level(m, claims[m.claim]) != "error" or (known is not None and m.claim not in known):
                continue
            errors += 1
            hit = [lab for lab in wrong if lab.claim == m.claim and lab.start < m.end and m.start < lab.end]
            right += bool(hit)
            caught.update(hit)
            if not hit and args.notes:
                print(f"  unlabelled error {name}:{m.start} {m.claim} {m.stance} {doc.text[m.start:m.end][:80]!r}")
    print(f"lint on {folder} (torch {verdicts.get('torch')}): {errors} error lines, {right} on a labelled wrong "
          f"statement ({right / errors if errors else 0:.3f}); {len(caught)} of {len(wrong_labels)} labelled wrong "
          f"statements caught ({len(caught) / len(wrong_labels) if wrong_labels else 0:.3f})")
    return 0

