"""The error every command raises for a mistake of the user's, and the parser that raises it."""
from __future__ import annotations

import argparse
import sys

from .strings import default_lang, wrap
from .strings_help_zh import HELP

# argparse's own word that no attribute holds (its other words, group titles and the -h help,
# are texts of the page and are in the table)
ARGPARSE_ZH = {"usage: ": "用法："}


class UsageError(Exception):
    """A mistake of the user's: printed as one line, exit status 2."""


def help_lang(argv: list[str] | None = None) -> str:
    """The language of a help page: ``--lang`` on the command line, else the locale's."""
    args = sys.argv[1:] if argv is None else argv
    for i, arg in enumerate(args):
        if arg == "--lang" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--lang="):
            return arg.partition("=")[2]
    return default_lang()


class _WideFormatter(argparse.HelpFormatter):
    """argparse's formatter, wrapping by display width (CJK counts two) and next to wide
    characters, as strings.wrap does: Chinese help has no spaces to break at."""

    def _split_lines(self, text, width):
        return wrap(" ".join(text.split()), width) or [""]

    def _fill_text(self, text, width, indent):
        return "\n".join(indent + line for line in wrap(" ".join(text.split()), width - len(indent)))


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are UsageError (one line, exit 2), never SystemExit, and whose
    help page is Chinese under a Chinese locale (or ``--lang zh``): every description, group title
    and option help is looked up in strings_help_zh.HELP by its English text, the way gettext
    catalogs are keyed. ``untranslated`` collects what the table lacks (the tests read it)."""

    built: list[Parser] = []          # every parser made in this process (the tests walk them)
    untranslated: set[str] = set()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        Parser.built.append(self)

    def error(self, message):
        raise UsageError(f"{self.prog}: {message}")

    def _texts(self):
        """(object, attribute) of every text of this page that a reader reads."""
        yield self, "description"
        yield self, "epilog"
        for group in self._action_groups:
            yield group, "title"
            yield group, "description"
        for action in self._actions:
            yield action, "help"
            for choice in getattr(action, "_choices_actions", ()):
                yield choice, "help"

    def format_help(self) -> str:
        return self._in_language(super().format_help)

    def format_usage(self) -> str:
        return self._in_language(super().format_usage)

    def _in_language(self, render) -> str:
        if help_lang() != "zh":
            return render()
        saved = []
        for owner, name in self._texts():
            value = getattr(owner, name, None)
            if not isinstance(value, str) or not value.strip() or value == argparse.SUPPRESS:
                continue
            saved.append((owner, name, value))
            if value in HELP:
                setattr(owner, name, HELP[value])
            elif value not in ARGPARSE_ZH:
                Parser.untranslated.add(value)
        formatter = self.formatter_class
        self.formatter_class = _WideFormatter
        try:
            page = render()
        finally:
            self.formatter_class = formatter
            for owner, name, value in saved:
                setattr(owner, name, value)
        for english, chinese in ARGPARSE_ZH.items():
            page = page.replace(english, chinese)
        for group in self._action_groups:   # argparse puts an ASCII colon after a group's title
            title = HELP.get(group.title or "", "")
            page = page.replace(f"\n{title}:\n", f"\n{title}：\n") if title else page
        return page
