"""``python -m torchclaims``: the catalog, links between claims and specs, and reports.

Every user error (unknown id, bad option, unreadable file) is one clear line on stderr
and exit status 2, never a traceback.

The one command layer: ``COMMANDS`` names each command's module in this package; a module holds
the command's options (``add_arguments(parser)``, the shared ones from ``options``), its help
texts, and ``run(args) -> int``, the call into the feature module that does the work. ``main``
builds the one parser, runs the command and turns its errors into one line and an exit status.
A command's module is imported only when that command runs (a command starts without importing
the others' feature modules).
"""
from __future__ import annotations

import importlib
import importlib.metadata
import os
import pathlib
import sys

from ..errors import Parser, UsageError
from ..strings import LANGS, default_lang, os_error, text, usage_line

PROG = "python -m torchclaims"

# command name -> (its module in torchclaims/commands/, its line in the command list), in the
# order ``--help`` lists them
COMMANDS = {
    "claims": ("claims", "list the catalog"),
    "show": ("show", "one claim with its specs, or a topic's claims"),
    "check": ("check", "validate the catalog, its links to specs, and lint hollow specs and labels"),
    "matrix": ("matrix", "render claim reports of several torch versions as a matrix"),
    "mutants": ("mutants", "run the specs once per planted fault and report survivors"),
    "bench-report": ("bench_report", "render a benchmark JSON as a Markdown report and a chart"),
    "workbook": ("workbook", "the learner's workbook: init, status, learn, watch"),
    "read": ("read", "a document with each claim marked where it is made (HTML, or --text)"),
    "anchors": ("anchors", "propose, show and record where the documents make each claim"),
    "lint": ("lint", "check tutorials (.md .rst .txt .ipynb .html) for statements wrong on this torch"),
    "finder-eval": ("finder_eval", "the claim finder's precision, recall and stance accuracy, measured"),
    "finder-fit": ("finder_fit", "fit the claim finder's decision (weights.json) and show its reliability"),
}


def command_module(name: str):
    """The module of command ``name`` (imported now, not before)."""
    return importlib.import_module(f"{__name__}.{COMMANDS[name][0]}")


def version() -> str:
    """The installed distribution's version (``make setup`` installs it, editable)."""
    try:
        return importlib.metadata.version("torchclaims")
    except importlib.metadata.PackageNotFoundError:
        return "(not installed: run make setup)"


def chosen(argv: list[str]) -> str | None:
    """The command on the line: the first word that is not an option (the top parser's own
    options, ``-h`` and ``--version``, take no value), when it names a command."""
    word = next((arg for arg in argv if not arg.startswith("-")), None)
    return word if word in COMMANDS else None


def build_parser(argv: list[str]) -> tuple[Parser, dict[str, Parser]]:
    """The top parser, one subparser per command; the options of the command ``argv`` names are
    filled in from its module's ``add_arguments`` (the others are never parsed)."""
    parser = Parser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"torchclaims {version()}")
    sub = parser.add_subparsers(dest="_command", metavar="COMMAND", parser_class=Parser)
    parsers = {}
    name = chosen(argv)
    for command, (_, help_text) in COMMANDS.items():
        if command != name:
            parsers[command] = sub.add_parser(command, help=help_text)
            continue
        module = command_module(command)
        parsers[command] = sub.add_parser(command, help=help_text, description=getattr(module, "DESCRIPTION", None))
        module.add_arguments(parsers[command])
        parsers[command].set_defaults(_run=module.run)
    return parser, parsers


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    lang = lang_of(argv)
    try:
        try:
            parser, parsers = build_parser(argv)
        except ModuleNotFoundError as exc:
            # Run outside the project's venv (python3 -m torchclaims with the system Python): one
            # line naming the venv to activate, not the import's traceback
            if (exc.name or "").partition(".")[0] == "torchclaims":
                raise
            venv = pathlib.Path(__file__).resolve().parent.parent.parent / ".venv"
            print(text(default_lang(), "no_venv", module=exc.name, venv=venv), file=sys.stderr)
            return 2
        args, rest = parser.parse_known_args(argv)
        if rest:   # named by the command's own parser, as when each command parsed its own line
            prog = parsers[args._command].prog if getattr(args, "_command", None) else parser.prog
            raise UsageError(f"{prog}: unrecognized arguments: {' '.join(rest)}")
        if not getattr(args, "_run", None):
            parser.print_help()
            return 2
        return args._run(args)
    except UsageError as exc:
        print(text(lang, "error_line", message=usage_line(lang, str(exc))), file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: one line and the shell's status for it, never a traceback
        print(text(lang, "interrupted"), file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into head: stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        print(text(lang, "error_line", message=os_error(lang, exc)), file=sys.stderr)
        return 2
    except ValueError as exc:
        print(text(lang, "error_line", message=exc), file=sys.stderr)
        return 2


def lang_of(argv: list[str]) -> str:
    """The language of the command's own messages: ``--lang X`` on the line, else the locale's."""
    for i, arg in enumerate(argv):
        value = arg.partition("=")[2] if arg.startswith("--lang=") else (argv[i + 1] if arg == "--lang" and i + 1 < len(argv) else None)
        if value in LANGS:
            return value
    return default_lang()
