"""``python -m torchclaims finder-fit``: fit the finder's decision and measure its reliability."""
from __future__ import annotations

from ..find import decide, fit
from . import options

DESCRIPTION = fit.__doc__.splitlines()[0]


def add_arguments(parser) -> None:
    options.output(parser, "FILE", "where the weights go (default: the package's)", default=str(decide.WEIGHTS), long=False)
    parser.add_argument("--no-seeds", action="store_true", help="fit without the four documents (a clone without them)")


def run(args) -> int:
    return fit.fit_command(args)
