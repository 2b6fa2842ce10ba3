"""``python -m torchclaims read DOCUMENT``: the document itself, each claim marked where it is made.

The reader brings their own copy of a document (the project never ships its text). Each claim
anchored in it (``claims/anchors/``) is placed by its fingerprint and highlighted by what the
specs measured about it on one torch release: from a claims report (``--report``), or from the
claim history (``--history``, default ``reports/claims/``), which also gives each claim's
release history ("holds up to 2.5.1, wrong since 2.6.0"). A span whose fingerprint is not in
the copy is never highlighted: it is listed, one line per claim, instead.

The page is one static HTML file, offline (inline CSS and JS, no network): a legend, filters by
verdict and topic, "next wrong statement", an English/Chinese switch for everything the project
wrote (the document stays as it is), and a panel per claim with what the material says, what is
true, the source section, the history and the command that runs its specs. ``--text`` prints the
document for a terminal instead, with the verdicts in the margin.
"""
from __future__ import annotations

import json
import pathlib
import shutil
import sys

from . import anchors, catalog, documents, find
from .errors import UsageError
from .files import page_file, page_template, write_whole
from .find import marks
from .strings import LANGS, cell_width, fill, section, text, translate, wrap, wrap_spans

GENERATOR = "torchclaims read"
DEFAULT_OUT = pathlib.Path("build") / "reader"   # /build/ is ignored by git: never a committed file
SEVERITY = ("wrong", "partly", "right", "other")   # a span several claims share shows the first
MARGIN = {"wrong": "✗", "partly": "◐", "right": "✓", "other": "·"}
MEASURED = ("right", "wrong", "partly")

UI = {lang: section(lang, "read:") for lang in LANGS}   # the page's words: strings.py, the "read:" keys

PROGRESS_OVER_CHARS = 1_000_000  # read reports its progress on stderr for a document longer than this


# ---------------------------------------------------------------- what the specs measured: reports.verdicts, handed to read()

def kind(measured: dict, cid: str) -> str:
    material = measured["claims"].get(cid, {}).get("material")
    return material if material in MEASURED else "other"


# ---------------------------------------------------------------- placing the claims in the copy

def covered(length: int, spans: list[tuple[int, int, str]], extra=()):
    """(start, end, the spans covering it, in ``spans``' order) of each piece of the text cut at every
    span boundary and at ``extra``. One sweep: a span is taken up where it starts and let go where
    it ends, so a document with thousands of marks is cut in time linear in them (asking every span
    of every piece was quadratic)."""
    cuts = sorted({0, length, *extra, *(s for s, _, _ in spans), *(e for _, e, _ in spans)})
    by_start = sorted(range(len(spans)), key=lambda k: spans[k][0])
    active: dict[int, tuple[int, int, str]] = {}
    nxt = 0
    for a, b in zip(cuts, cuts[1:]):
        while nxt < len(by_start) and spans[by_start[nxt]][0] <= a:
            active[by_start[nxt]] = spans[by_start[nxt]]
            nxt += 1
        for k in [k for k, (_, e, _) in active.items() if e <= a]:
            del active[k]
        # every cut is a boundary, so a span that started at or before a and ends after it covers [a, b)
        yield a, b, [active[k] for k in sorted(active)]


def _spans(placed: anchors.Placed) -> list[tuple[int, int, str]]:
    return [(s, e, p.anchor.claim) for p in placed.placed for s, e in p.spans]


def _worst(ids: list[str], measured: dict) -> str:
    kinds = {kind(measured, cid) for cid in ids}
    return next(k for k in SEVERITY if k in kinds)


# ---------------------------------------------------------------- the HTML page

STYLE = page_file("reader.css")

SCRIPT = page_file("reader.js")


def torch_why(measured: dict) -> dict | None:
    """Why the page judges by its torch (reports.verdicts: the installed one where the history has
    it, else the newest measured, or the one asked for), for the line that names it."""
    if not measured.get("torch") or not measured.get("why"):
        return None
    return {"kind": measured["why"], "installed": measured.get("installed") or "?"}


def claim_payload(cid: str, claims: dict, measured: dict, document: str | None) -> dict:
    c = claims[cid]
    info = measured["claims"].get(cid, {})
    sources = [s for s in c.seed_sources if document is None or s.startswith(document + " ")] or list(c.seed_sources)
    label = {lang: "; ".join([catalog.source_label(s, lang, with_file=True) for s in sources]
                             + ([c.tutorials_label(lang)] if c.tutorials else [])) for lang in ("en", "zh")}
    return {"topic": c.topic, "verdict": c.verdict, "kind": kind(measured, cid),
            "verdict_en": c.verdict, "verdict_zh": text("zh", c.verdict),
            "says_en": c.says, "says_zh": c.says_zh, "truth_en": c.truth, "truth_zh": c.truth_zh,
            "source_en": label["en"], "source_zh": label["zh"], "history_en": info.get("history", ""),
            "history_zh": info.get("history_zh", ""),
            "cells": info.get("cells", []), "command": f"pytest specs/ --claim {cid}",
            "stance": info.get("stance"), "confidence": info.get("confidence")}


def render_html(doc_text: str, title: str, placed: anchors.Placed, claims: dict, measured: dict,
                lang: str = "en") -> str:
    """The page (torchclaims/pages/reader.html, autoescaped): the document cut at every span, each
    marked stretch carrying its claims innermost first and their span lengths."""
    spans = [(s, b, cid) for s, b, cid in _spans(placed) if cid in claims]
    ids = list(dict.fromkeys(cid for _, _, cid in sorted(spans)))
    heads = {start for _, start, _ in anchors.sections(doc_text)}
    body = []
    for a, b, around in covered(len(doc_text), spans, heads):
        covering = list(dict.fromkeys(cid for _, _, cid in around))
        piece = {"section": a in heads, "text": doc_text[a:b], "claims": ""}
        if covering:
            # innermost first: a tap opens the claim(s) whose own sentence is the shortest around it
            length = {cid: min(t - s for s, t, c in around if c == cid) for cid in covering}
            covering = sorted(covering, key=lambda cid: (length[cid], SEVERITY.index(kind(measured, cid))))
            own = [cid for cid in covering if length[cid] == length[covering[0]]]
            piece.update(kind=_worst(own, measured), claims=" ".join(covering),
                         lens=" ".join(str(length[cid]) for cid in covering))
        body.append(piece)
    documents = sorted({p.anchor.document for p in placed.placed})
    payload = {"lang": lang, "ui": UI, "torch": measured["torch"], "why": torch_why(measured),
               "versions": measured["versions"], "placed": len(ids),
               "claims": {cid: claim_payload(cid, claims, measured, documents[0] if len(documents) == 1 else None)
                          for cid in ids}}
    topics = [{"id": t, "en": text("en", "topic:" + t), "zh": text("zh", "topic:" + t), "shown": text(lang, "topic:" + t)}
              for t in sorted({claims[cid].topic for cid in ids})]
    return page_template("reader.html").render(
        lang=lang, generator=GENERATOR, title=title, style=STYLE, script=SCRIPT, severity=SEVERITY,
        counts={k: sum(payload["claims"][cid]["kind"] == k for cid in ids) for k in SEVERITY}, topics=topics,
        body=body, missing=missing_lines(placed, lang),
        data=json.dumps(payload, ensure_ascii=False).replace("</", "<\\/"))


# ---------------------------------------------------------------- the terminal

def missing_lines(placed: anchors.Placed, lang: str) -> list[str]:
    """One line per anchor not placed: its claim, its section and why, in ``lang``."""
    return [text(lang, "read:missing_line", claim=a.claim, why=translate(lang, why),
                 where=text(lang, "read:section", section=a.section) if a.section else "")
            for a, why in placed.missing]


def render_text(text: str, placed: anchors.Placed, claims: dict, measured: dict, lang: str = "en",
                width: int = 100) -> str:
    spans = sorted((s, b, cid) for s, b, cid in _spans(placed) if cid in claims)
    number = {cid: n for n, cid in enumerate(dict.fromkeys(cid for _, _, cid in spans), 1)}
    ui = UI[lang]
    body_width = max(20, width - 8)
    said = ui['measured_on'].format(torch=measured['torch']) if measured['torch'] else ui['no_measure']
    if measured['torch'] and measured.get('why'):   # one torch on screen, and why that one
        said += ("，" if lang == "zh" else ", ") + fill(ui[f"why_{measured['why']}"], installed=measured.get("installed") or "?")
    colon = "：" if lang == "zh" else ": "
    out = [f"{ui['title']}  " + (f"（{said}）" if lang == "zh" else f"({said})"),
           "  " + "  ".join(f"{MARGIN[k]} {ui[k]}" for k in SEVERITY), ""]
    heads = {start for _, start, _ in anchors.sections(text)}
    active: list[tuple[int, int, str]] = []   # the spans begun before this line that may reach into it
    nxt = 0
    for start, end in wrap_spans(text, body_width):   # by display width, never inside a word or a call
        if start in heads and out[-1] != "":
            out.append("")
        while nxt < len(spans) and spans[nxt][0] < end:   # lines only move on: one sweep over the spans
            active.append(spans[nxt])
            nxt += 1
        active = [span for span in active if span[1] > start]
        here = [(s, cid) for s, _, cid in active]
        if here:
            worst = _worst([cid for _, cid in here], measured)
            mark = f"{MARGIN[worst]}{','.join(str(number[c]) for c in dict.fromkeys(c for _, c in here))}"
        else:
            mark = ""
        if cell_width(mark) > 7:
            mark = mark[:6] + "+"
        out.append(f"{mark:<7}│{text[start:end]}")
        for s, cid in here:
            if start <= s < end:
                c = claims[cid]
                info = measured["claims"].get(cid, {})
                verdict = ui[kind(measured, cid)]
                head = f"  [{number[cid]}] {MARGIN[kind(measured, cid)]} {cid}{colon}{verdict}"
                said = info.get("history" if lang == "en" else "history_" + lang)
                if said:
                    head += ("; " if lang == "en" else "；") + said
                out += [f"{'':<7}│{line}" for line in wrap(head, body_width, "      ")]
                truth = f"{ui['truth']}{colon}{c.text('truth', lang)}"
                for line in wrap(truth, body_width - 6):
                    out.append(f"{'':<7}│      {line}")
                out.append(f"{'':<7}│      {ui['run']}{colon}pytest specs/ --claim {cid}")
    if placed.missing:
        out += ["", ui["missing"] + ("：" if lang == "zh" else ":")] + missing_lines(placed, lang)
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- writing, whole or not at all

def write_page(out_dir: pathlib.Path, name: str, page: str) -> pathlib.Path:
    """Write ``out_dir/name`` atomically; refuse to replace a file this command did not write."""
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(text("en", "read:o_is_file", path=out_dir))
    target = out_dir / name
    if target.exists():
        try:
            head = target.read_text(encoding="utf-8", errors="replace")[:600]
        except OSError as exc:
            raise UsageError(f"{target}: cannot be read to check it ({exc.strerror})") from None
        if f"content='{GENERATOR}'" not in head:
            raise UsageError(f"{target}: exists and was not written by this command; choose another -o folder")
    out_dir.mkdir(parents=True, exist_ok=True)
    return write_whole(target, page)


def found_as_placed(shown: list, measured: dict) -> tuple[anchors.Placed, dict]:
    """The finder's marks in the shape the page and the terminal view take (a placement per mark),
    and the verdicts to colour them by: each claim by its passages' statements on that torch (a
    passage that denies a refuted claim is right), the worst where a claim is marked twice."""
    placed = anchors.Placed([], [])
    colour: dict[str, str] = {}
    for m in shown:
        placed.placed.append(anchors.Placement(anchors.Anchor(m.claim, "", "", m.start, m.end, 0, "", ()),
                                               ((m.start, m.end),)))
        kind_here = m.verdict if m.verdict in MEASURED else "other"
        before = colour.get(m.claim)
        colour[m.claim] = kind_here if before is None else min(before, kind_here, key=SEVERITY.index)
    first = {}
    for m in shown:
        first.setdefault(m.claim, m)
    claims = {cid: dict(measured["claims"].get(cid, {}), material=k, stance=first[cid].stance,
                        confidence=round(first[cid].confidence, 2)) for cid, k in colour.items()}
    return placed, dict(measured, claims={**measured["claims"], **claims})


def _output(path: str | None, fmt: str, name: str) -> tuple[pathlib.Path, str]:
    """(folder, file name) where the page or the JSON goes: ``-o FILE.html`` / ``-o FILE.json`` is
    that file, any other ``-o`` a folder; without ``-o`` the page goes to build/reader/."""
    suffix = ".json" if fmt == "json" else ".html"
    if path is None:
        return DEFAULT_OUT, pathlib.Path(name).stem + suffix
    target = pathlib.Path(path)
    if target.suffix.lower() in (".html", ".htm", ".json"):
        if target.suffix.lower() != suffix and not (suffix == ".html" and target.suffix.lower() == ".htm"):
            raise UsageError(text("en", "read:o_suffix", path=path, suffix=target.suffix, fmt=fmt, wanted=suffix))
        return target.parent, target.name
    return target, pathlib.Path(name).stem + suffix


def read(args, verdicts) -> int:
    """``read``: the options are commands/read.py's (``args`` holds them); ``verdicts`` is
    ``reports.verdicts``, handed down by the command (a view reads no report itself)."""
    fmt = "text" if args.text else args.format or "html"
    if args.text and args.format not in (None, "text"):
        raise UsageError(text("en", "read:text_format", fmt=args.format))
    if args.torch and args.report:
        raise UsageError(text("en", "read:torch_report"))
    if fmt == "text" and args.output:
        raise UsageError(text("en", "read:o_text"))
    doc = documents.load(args.document)
    if doc.note:
        print(translate(args.lang, doc.note), file=sys.stderr)
    claims = catalog.load_for_command()
    found = anchors.load()
    if found.problems:
        raise UsageError("the anchors are broken: " + "; ".join(found.problems))
    measured = verdicts(args.report, args.history, args.torch, claims, one_release=fmt != "html")
    progress = None
    if len(doc.text) > PROGRESS_OVER_CHARS:
        def progress(at: int, total: int) -> None:
            print("\r" + text(args.lang, "read:progress", size=total / 1e6, percent=100 * at // total), end="",
                  file=sys.stderr, flush=True)
    result = marks.mark(doc, claims, found, measured, use_anchors=not args.no_anchors, progress=progress)
    if progress:
        print("\r" + text(args.lang, "read:progress", size=len(doc.text) / 1e6, percent=100), file=sys.stderr)
    if fmt == "json":
        blob = json.dumps(result.as_json(args.all), ensure_ascii=False, indent=1) + "\n"
        if args.output is None:
            sys.stdout.write(blob)
            return 0
        folder, name = _output(args.output, fmt, doc.name)
        out = write_whole(_checked(folder, name, json_ok=True), blob)
        print(text(args.lang, "read:json_wrote", n=len(result.shown(args.all)), path=out))
        return 0
    anchored = result.placed is not None and bool(result.placed.placed)
    if anchored:
        placed = result.placed
        documents_hit = sorted({p.anchor.document for p in placed.placed})
    else:
        placed, measured = found_as_placed(result.shown(args.all), measured)
        documents_hit = []
    if fmt == "text":
        width = args.width or shutil.get_terminal_size((100, 24)).columns
        sys.stdout.write(render_text(doc.text, placed, claims, measured, args.lang, width))
        return 0
    title = "; ".join(catalog.source_label(d, args.lang) for d in documents_hit) or doc.name
    page = render_html(doc.text, title, placed, claims, measured, args.lang)
    folder, name = _output(args.output, fmt, doc.name)
    out = write_page(folder, name, page)
    if anchored:
        print(text(args.lang, "read:wrote", placed=len({p.anchor.claim for p in placed.placed}),
                   missing=len(placed.missing), path=out))
        for line in missing_lines(placed, args.lang):
            print("  " + line)
    else:
        hidden = len(result.marks) - len(result.shown(args.all))
        print(text(args.lang, "read:found_wrote", n=len(placed.placed), path=out))
        if hidden:
            print("  " + text(args.lang, "read:found_hidden", n=hidden, shown=find.SHOWN))
        if not placed.placed:
            print("  " + text(args.lang, "read:found_none"))
    return 0


def _checked(folder: pathlib.Path, name: str, json_ok: bool = False) -> pathlib.Path:
    """``folder/name``, refusing a folder that is a file; a JSON file is replaced only if it is a
    JSON this command wrote (it has the contract's keys)."""
    if folder.exists() and not folder.is_dir():
        raise UsageError(text("en", "read:is_a_file", path=folder))
    target = folder / name
    if target.exists() and json_ok:
        try:
            old = json.loads(target.read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError):
            old = None
        if not (isinstance(old, dict) and {"document", "chars", "marks"} <= set(old)):
            raise UsageError(text("en", "read:json_taken", path=target))
    folder.mkdir(parents=True, exist_ok=True)
    return target
