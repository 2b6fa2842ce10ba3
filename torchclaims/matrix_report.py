"""``python -m torchclaims matrix``: the claim history across torch releases, from claims reports.

``matrix REPORT.json...`` prints the Markdown table (``-o PATH`` writes PATH.md and PATH.html);
``matrix --compare OLD NEW`` lists the verdict changes between two runs and exits 1 when one is
unexpected. The data is reports.py's, the table history/table.py's, the page history/page.py's;
the options are torchclaims/commands/matrix.py's.
"""
from __future__ import annotations

import pathlib
import sys

from . import catalog, reports
from .errors import UsageError
from .files import write_whole
from .history import page as history_page, table as history_table
from .outcomes import MEASURED
from .strings import cell_width, state_word, text, translate


def compare(old: dict, new: dict, lang: str = "en") -> tuple[list[str], list[str], int]:
    """Two lists of lines and a count: the claims whose verdict changed between two reports (a
    measured verdict on both sides, a broken spec, or an outcome the catalog does not expect in
    the new one), the claims measured in only one of the two (with the reason: these are not
    verdict changes), and how many verdict changes are unexpected."""
    def say(key, **fields):
        return text(lang, "cmp:" + key, **fields)

    def verdict(value):
        return value if lang == "en" or value not in MEASURED else text(lang, "h:" + value)
    changes, one_side, unexpected = [], [], 0
    tags = {flag: say("unexpected" if flag else "expected") for flag in (True, False)}
    tag_width = max(cell_width(tag) for tag in tags.values())
    for cid, entry in new["claims"].items():
        prior = old["claims"].get(cid) or {}
        before, after = prior.get("material"), entry["material"]
        bad = entry["outcome"] in ("changed", "broken")
        if before in MEASURED and after in MEASURED or bad:
            if before == after and not bad:
                continue
            unexpected += bad
            tag = " " * (tag_width - cell_width(tags[bad])) + tags[bad]
            why = say("why", reason=entry["reason"]) if bad and entry.get("reason") else ""
            changes.append(say("change", tag=tag, id=cid, before=verdict(before) if before else say("absent"),
                               old=old["torch"], after=verdict(after), new=new["torch"], why=why))
        elif (before in MEASURED) != (after in MEASURED):
            side, missing = (new, entry) if before in MEASURED else (old, prior)
            state = state_word(missing.get("material"), lang)
            reason = translate(lang, missing.get("reason") or "") or say("not_in" if not missing else "no_reason")
            measured = before if before in MEASURED else after
            one_side.append(say("one_side", id=cid, measured=verdict(measured),
                                where=(old if before in MEASURED else new)["torch"], state=state,
                                other=side["torch"], reason=reason))
    return changes, one_side, unexpected


def _selection_note(old: dict, new: dict, lang: str = "en") -> str | None:
    """A warning when the two runs are not alike: other specs selected, another device."""
    differ = []
    if history_table.selection(old) != history_table.selection(new):
        differ.append(text(lang, "cmp:d_specs", old=history_table.selection(old, lang), new=history_table.selection(new, lang)))
    if reports.accelerator_of(old) != reports.accelerator_of(new):
        differ.append(text(lang, "cmp:d_device", old=reports.accelerator_of(old), new=reports.accelerator_of(new)))
    if bool(old.get("torchvision")) != bool(new.get("torchvision")):
        none = text(lang, "mx:row_none")
        differ.append(text(lang, "cmp:d_vision", old=old.get("torchvision") or none, new=new.get("torchvision") or none))
    if not differ:
        return None
    return text(lang, "cmp:note", what=text(lang, "h:device_join").join(differ))


def output_paths(output: str) -> tuple[pathlib.Path, pathlib.Path]:
    """Where ``-o`` writes: PATH.md and PATH.html, or PATH/matrix.{md,html} for an existing folder."""
    out = pathlib.Path(output)
    if out.is_dir():
        out = out / "matrix"
    elif out.suffix in (".md", ".html"):
        out = out.with_suffix("")
    if not out.parent.is_dir():
        raise UsageError(text("en", "mx:no_folder", output=output, folder=out.parent))
    return out.with_name(out.name + ".md"), out.with_name(out.name + ".html")


def report(args) -> int:
    """``matrix``: the options are commands/matrix.py's (``args`` holds them)."""
    if args.compare:
        if len(args.reports) != 2:
            raise UsageError(text("en", "mx:compare_two"))
        if args.output:
            raise UsageError(text("en", "mx:compare_no_o"))
        old, new = (reports.load_reports([p])[0] for p in args.reports)
        try:
            claims = catalog.load()
        except catalog.CatalogError:
            claims = {}
        lang = args.lang
        changes, one_side, unexpected = compare(reports.rederive(old, claims), reports.rederive(new, claims), lang)
        note = _selection_note(old, new, lang)
        if note:
            print(note)
        print(text(lang, "cmp:head", old=old["torch"], new=new["torch"], n=len(changes)))
        for line in changes:
            print(line)
        if one_side:
            print(text(lang, "cmp:one_head", n=len(one_side)))
            for line in one_side:
                print(line)
        print(text(lang, "cmp:summary", n=len(changes), u=unexpected, k=len(one_side),
                   tail=text(lang, "cmp:tail_bad" if unexpected else "cmp:tail_ok")))
        return 1 if unexpected else 0
    loaded = reports.load_reports(args.reports)
    targets = output_paths(args.output) if args.output else None
    if targets and not args.force:
        present = [str(t) for t in targets if t.exists()]
        if present:
            raise UsageError(text("en", "mx:exists", paths=" and ".join(present)))
    try:
        claims = catalog.load()
    except catalog.CatalogError as exc:  # the reports carry what the table needs; the texts are a bonus
        print(f"note: the catalog is broken, so the verdicts are the reports' own and the HTML has no "
              f"claim texts ({str(exc).splitlines()[0]})", file=sys.stderr)
        claims = {}
    loaded = [reports.rederive(r, claims) for r in loaded]
    data = reports.history_data(loaded)
    markdown = history_table.render_markdown(loaded, data, claims, args.lang)
    if targets is None:
        sys.stdout.write(markdown)
        print(text(args.lang, "mx:nothing_written"), file=sys.stderr)
        return 0
    page = history_page.render_html(loaded, data, claims, args.lang)
    md, html_path = targets
    write_whole(md, markdown)
    write_whole(html_path, page)
    print(text(args.lang, "mx:wrote", rows=len(data["rows"]), runs=len(loaded), flips=len(data["flips"]), md=md,
               html=html_path))
    return 0
