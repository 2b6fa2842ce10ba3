"""``python -m torchclaims read DOCUMENT``: the document, each claim marked where it is made."""
from __future__ import annotations

from .. import reader, reports
from . import options

DESCRIPTION = reader.__doc__.splitlines()[0]


def add_arguments(parser) -> None:
    parser.add_argument("document", metavar="DOCUMENT",
                        help="any tutorial (.txt .md .rst .ipynb .html), or one of ../shared/seeds/NNN_hash.txt")
    options.output(parser, "PATH", f"the page's file (FILE.html) or folder (default {reader.DEFAULT_OUT}/); with "
                                   "--format json a FILE.json (default: standard output)")
    source = parser.add_mutually_exclusive_group()
    options.report(source)
    options.history(source, "verdicts and release history from a folder of claims reports (default reports/claims/)")
    options.torch(parser, "with --history: the release to colour by "
                          "(default the installed one where the history has it, else the newest)")
    parser.add_argument("--format", choices=("html", "text", "json"), help="the page (default), the document for a "
                        "terminal with the verdicts in the margin, or the marks as JSON")
    parser.add_argument("--text", action="store_true", help="the same as --format text")
    parser.add_argument("--all", action="store_true", help="also the finder's low-confidence marks and mere mentions")
    parser.add_argument("--no-anchors", action="store_true",
                        help="one of the four documents marked by the finder alone, its anchors set aside")
    options.lang(parser, "language of what the project wrote (default: the locale's)")
    parser.add_argument("--width", type=int, help="--text: line width (default the terminal's)")


def run(args) -> int:
    return reader.read(args, reports.verdicts)
