"""``python -m torchclaims anchors``: propose, show and record where the documents make each claim.
The work is torchclaims/anchoring.py's (the anchors themselves: torchclaims/anchors.py)."""
from __future__ import annotations

from .. import anchoring, catalog
from ..errors import Parser, UsageError

DESCRIPTION = "propose, show and record the anchors of claims"


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="what", required=True, parser_class=Parser)
    p = sub.add_parser("propose", help="propose a span for a claim from its section and key terms")
    p.add_argument("id", nargs="?")
    p.add_argument("--all", action="store_true", help="every claim and document that has no anchor or reason yet")
    p.add_argument("--doc", help="only this document (seed file name)")
    p.add_argument("--terms", help="comma-separated terms to look for instead of the claim's own")
    p.add_argument("--pick", type=int, default=1, help="take the N-th best sentence (default 1)")
    p.add_argument("--show", action="store_true", help="print the proposed span in its context (never commit it)")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--write", action="store_true", help="record the proposals in claims/anchors/")
    p.set_defaults(func=anchoring.cmd_propose)
    p = sub.add_parser("show", help="print a claim's anchored spans in their context")
    p.add_argument("id")
    p.add_argument("--doc")
    p.add_argument("--context", type=int, default=40)
    p.set_defaults(func=anchoring.cmd_show)
    p = sub.add_parser("skip", help="record why a claim cannot be anchored in a document")
    p.add_argument("id")
    p.add_argument("--doc")
    p.add_argument("--section", help="only this anchors.cited section (without the §)")
    p.add_argument("--reason", required=True)
    p.set_defaults(func=anchoring.cmd_skip)
    p = sub.add_parser("set", help="record a span (whole sentences) as where a document makes a claim")
    p.add_argument("id")
    p.add_argument("--doc", help="the seed file (default: the claim's first document)")
    p.add_argument("--section", help="the anchors.cited section (default: the one holding the span)")
    p.add_argument("--start", type=int, required=True, help="first character of the span")
    p.add_argument("--end", type=int, required=True, help="character after the span")
    p.add_argument("--show", action="store_true", help="print the span in its context (never commit it)")
    p.set_defaults(func=anchoring.cmd_set)
    p = sub.add_parser("drop", help="remove a claim's anchor in a document (or one section of it)")
    p.add_argument("id")
    p.add_argument("--doc", required=True)
    p.add_argument("--section")
    p.set_defaults(func=anchoring.cmd_drop)
    p = sub.add_parser("status", help="how many claims are anchored, and the reasons for the rest")
    p.set_defaults(func=anchoring.cmd_status)


def run(args) -> int:
    if args.what == "propose" and not (args.id or args.all):
        raise UsageError("propose needs a claim id or --all")
    claims = catalog.load_for_command()
    return args.func(args, claims)
