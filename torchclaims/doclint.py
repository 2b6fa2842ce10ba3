"""``python -m torchclaims lint PATH...``: tutorials checked for what they state about PyTorch.

For tutorial authors and their CI. Every document under the paths (``.md``, ``.rst``, ``.txt``,
``.ipynb``, ``.html``; folders are walked, hidden ones skipped) is marked as ``read`` marks it
(the finder, or the anchors for one of the four documents), and each mark is one line in the
compilers' format::

    path:line:col: claim-id: wrong on torch 2.14.1: <what is true, in one line>

Lines and columns are 1-based, in the file's text (for a notebook or a web page: in the text
extracted from it, as ``read --format json`` gives it). ``--format sarif`` writes SARIF 2.1.0
for code-scanning annotations instead. The exit status is 1 when a passage states something
wrong on the chosen torch, 0 otherwise, 2 on bad input.
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import sys

from . import anchors, catalog, documents, find, marks, measured
from .errors import Parser, UsageError
from .files import write_whole
from .strings import default_lang, text, translate

LEVEL = {"wrong": "error", "partly": "warning", "right": "note", "not measured": "note"}


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
                "ruleId": m.claim, "level": LEVEL[m.verdict],
                "message": {"text": f"{m.verdict} on torch {torch or '?'} ({m.stance}, confidence "
                                    f"{m.confidence:.2f}): {one_line(claim.text('truth', lang))}"},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": doc.path.as_posix()},
                    "region": {"startLine": line, "startColumn": col, "endLine": end_line, "endColumn": end_col}}}],
                "properties": {"stance": m.stance, "confidence": round(m.confidence, 3), "how": m.how,
                               "verdict": m.verdict}})
    return {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
            "runs": [{"tool": {"driver": {"name": "torchclaims", "rules": list(rules.values())}},
                      "columnKind": "unicodeCodePoints", "results": out}]}


def main(argv: list[str]) -> int:
    parser = Parser(prog="python -m torchclaims lint", description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", metavar="PATH", help="documents or folders of them")
    parser.add_argument("--format", choices=("text", "sarif"), default="text")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    parser.add_argument("--min-confidence", type=float, default=find.SHOWN, metavar="X",
                        help=f"the lowest confidence reported, 0 to 1 (default {find.SHOWN})")
    parser.add_argument("--report", metavar="REPORT.json", help="verdicts from one claims report")
    parser.add_argument("--history", metavar="DIR", help="verdicts from a folder of claims reports (default reports/claims/)")
    parser.add_argument("--torch", metavar="VERSION", help="with --history: the release to judge by (default the newest)")
    parser.add_argument("--lang", choices=("en", "zh"), default=default_lang(),
                        help="language of the truths and messages (default: the locale's)")
    args = parser.parse_args(argv)
    if not 0 <= args.min_confidence <= 1:
        raise UsageError(text("en", "lint:confidence", value=args.min_confidence))
    if args.torch and args.report:
        raise UsageError(text("en", "read:torch_report"))
    paths = collect(args.paths)
    if not paths:
        raise UsageError(text("en", "lint:no_document", paths=" ".join(args.paths)))
    try:
        claims = catalog.load()
    except catalog.CatalogError as exc:
        raise UsageError("the claim catalog is broken: " + str(exc).replace("\n", "; ")) from None
    found = anchors.load()
    verdicts = measured.verdicts(args.report, args.history, args.torch, claims, one_release=True)
    the_finder = find.Finder(claims)
    results = []
    for path in paths:
        doc = documents.load(path)
        if doc.note:
            print(translate(args.lang, doc.note), file=sys.stderr)
        result = marks.mark(doc, claims, found, verdicts, the_finder)
        results.append((result, result.shown(threshold=args.min_confidence)))
    torch = verdicts.get("torch")
    if args.format == "sarif":
        out = json.dumps(sarif(results, claims, torch, args.lang), ensure_ascii=False, indent=1) + "\n"
    else:
        lines = []
        for result, shown in results:
            for m in shown:
                line, col = result.document.line_col(m.start)
                lines.append(f"{result.document.path}:{line}:{col}: {m.claim}: {m.verdict} on torch {torch or '?'}: "
                             f"{one_line(claims[m.claim].text('truth', args.lang))}")
        out = "".join(line + "\n" for line in lines)
    if args.output:
        write_whole(pathlib.Path(args.output), out)
    else:
        sys.stdout.write(out)
    wrong = sum(m.verdict == "wrong" for _, shown in results for m in shown)
    total = sum(len(shown) for _, shown in results)
    print(text(args.lang, "lint:summary", n=len(paths), found=total, wrong=wrong, torch=torch or "?"), file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
