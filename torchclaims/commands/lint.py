"""``python -m torchclaims lint PATH...``: tutorials checked for what they state about PyTorch."""
from __future__ import annotations

from .. import doclint, find, reports
from . import options

DESCRIPTION = doclint.__doc__.splitlines()[0]


def add_arguments(parser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="documents or folders of them")
    parser.add_argument("--format", choices=("text", "sarif"), default="text")
    options.output(parser, "FILE", "write to FILE instead of standard output")
    parser.add_argument("--min-confidence", type=float, default=find.SHOWN, metavar="X",
                        help=f"the lowest confidence reported, 0 to 1 (default {find.SHOWN})")
    options.report(parser)
    options.history(parser, "verdicts from a folder of claims reports (default reports/claims/)")
    options.torch(parser, "with --history: the release to judge by "
                          "(default the installed one where the history has it, else the newest)")
    options.lang(parser, "language of the truths and messages (default: the locale's)")
    parser.add_argument("--fail-on", choices=("error", "warning"), default="error",
                        help="the lowest severity that makes the exit status 1 (default error)")
    parser.add_argument("--notes", action="store_true", help="also the right statements (level note)")
    parser.add_argument("--labels", metavar="DIR", help="measure lint on a labelled set DIR (docs/ and labels.toml)")


def run(args) -> int:
    return doclint.lint(args, reports.verdicts)
