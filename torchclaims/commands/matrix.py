"""``python -m torchclaims matrix``: the claim history across torch releases, from claims reports."""
from __future__ import annotations

from .. import matrix_report
from . import options

DESCRIPTION = matrix_report.__doc__.splitlines()[0]


def add_arguments(parser) -> None:
    parser.add_argument("reports", nargs="+", metavar="REPORT.json")
    options.output(parser, "PATH", "write PATH.md and PATH.html (PATH/matrix.md and .html when PATH is an existing "
                                   "folder); without -o the Markdown goes to standard output and nothing is written")
    parser.add_argument("--force", action="store_true", help="replace the files -o names if they exist")
    parser.add_argument("--compare", action="store_true",
                        help="compare two reports (OLD NEW): verdict changes, and claims measured in one only; "
                             "exit 1 if a verdict change is unexpected")
    options.lang(parser, "language of the page and the Markdown (default: the locale's)")


def run(args) -> int:
    return matrix_report.report(args)
