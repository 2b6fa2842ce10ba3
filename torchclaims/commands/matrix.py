"""``python -m torchclaims matrix``: the claim history across torch releases, from claims reports.

``matrix REPORT.json...`` prints the Markdown table (``-o PATH`` writes PATH.md and PATH.html);
``matrix --compare OLD NEW`` lists the verdict changes between two runs and exits 1 when one is
unexpected. The data is reports.py's; the table, the page and the comparison are history/'s.
"""
from __future__ import annotations

import pathlib
import sys

from .. import catalog, reports
from ..errors import UsageError
from ..files import write_whole
from ..history import compare as history_compare, page as history_page, table as history_table
from ..strings import text
from . import options

DESCRIPTION = __doc__.splitlines()[0]


def add_arguments(parser) -> None:
    parser.add_argument("reports", nargs="+", metavar="REPORT.json")
    options.output(parser, "PATH", "write PATH.md and PATH.html (PATH/matrix.md and .html when PATH is an existing "
                                   "folder); without -o the Markdown goes to standard output and nothing is written")
    parser.add_argument("--force", action="store_true", help="replace the files -o names if they exist")
    parser.add_argument("--compare", action="store_true",
                        help="compare two reports (OLD NEW): verdict changes, and claims measured in one only; "
                             "exit 1 if a verdict change is unexpected")
    options.lang(parser, "language of the page and the Markdown (default: the locale's)")


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


def run(args) -> int:
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
        changes, one_side, unexpected = history_compare.compare(reports.rederive(old, claims), reports.rederive(new, claims), lang)
        note = history_compare.selection_note(old, new, lang)
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
