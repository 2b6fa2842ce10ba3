"""The error every command raises for a mistake of the user's, and the parser that raises it."""
from __future__ import annotations

import argparse


class UsageError(Exception):
    """A mistake of the user's: printed as one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are UsageError (one line, exit 2), never SystemExit."""

    def error(self, message):
        raise UsageError(f"{self.prog}: {message}")

