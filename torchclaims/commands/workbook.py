"""``python -m torchclaims workbook``: the learner's workbook. ``init DIR`` writes the reference
code with the lessons' functions stubbed, ``status DIR`` shows each lesson's state, ``learn DIR``
runs the next lesson's specs against the learner's code, ``watch DIR`` reruns it on every save.
The work is torchclaims/workbook/book.py's."""
from __future__ import annotations

from ..errors import Parser, UsageError
from ..strings import default_lang, text
from ..workbook import book as workbook
from . import options

DESCRIPTION = "the learner's workbook: write the reference code yourself, lesson by lesson"

SUBCOMMANDS = (
    ("init", workbook.cmd_init, "write a workbook into DIR (existing files are kept)"),
    ("status", workbook.cmd_status, "show the progress of the workbook in DIR"),
    ("learn", workbook.cmd_learn, "run the lessons once against DIR"),
    ("watch", workbook.cmd_watch, "rerun the lessons whenever a .py file in DIR changes"),
)


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name, func, help_text in SUBCOMMANDS:
        p = sub.add_parser(name, help=help_text)
        p.add_argument("dir", metavar="DIR")
        options.lang(p)
        if name == "watch":
            p.add_argument("--interval", type=float, default=1.0, help="seconds between checks (default 1)")
        p.set_defaults(func=func)


def run(args) -> int:
    if not getattr(args, "func", None):
        raise UsageError(text(default_lang(), "wb_no_command"))
    return args.func(args)
