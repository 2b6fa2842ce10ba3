"""``python -m torchclaims check``: the catalog, its links to specs, and the lints of specs and labels."""
from __future__ import annotations

from .. import catalog_view


def add_arguments(parser) -> None:
    parser.add_argument("--static", action="store_true", help="read the spec files instead of collecting them with pytest")


def run(args) -> int:
    return catalog_view.check(args.static)
