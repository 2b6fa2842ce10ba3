"""``python -m torchclaims show ID``: one claim with its specs, or a topic's claims."""
from __future__ import annotations

from .. import catalog_view
from . import options


def add_arguments(parser) -> None:
    parser.add_argument("id", metavar="ID", help="a claim id, or a topic (its claims, one a line)")
    options.lang(parser)


def run(args) -> int:
    return catalog_view.show(args.id, args.lang)
