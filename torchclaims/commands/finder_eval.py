"""``python -m torchclaims finder-eval``: how well the claim finder does, measured."""
from __future__ import annotations

from .. import catalog
from ..find import evaluate, finder

DESCRIPTION = evaluate.__doc__.splitlines()[0]


def add_arguments(parser) -> None:
    parser.add_argument("--set", metavar="DIR", help=f"a labelled set (default {evaluate.DEFAULT_SET.relative_to(catalog.ROOT)}/)")
    parser.add_argument("--seeds", action="store_true", help="also: the four documents, anchors set aside")
    parser.add_argument("--threshold", type=float, default=finder.SHOWN, help=f"confidence shown (default {finder.SHOWN})")
    parser.add_argument("--errors", action="store_true", help="list every wrong mark, miss and wrong stance")
    parser.add_argument("--claim", metavar="ID", action="append", help="explain one claim: cues, anchors, marks in the four documents")
    parser.add_argument("--stages", action="store_true", help="where each labelled passage of the set is lost: the first stage that lost it")
    parser.add_argument("--speed", action="store_true", help="the finder's benchmark: read and lint of 100 KB, 1 MB, 10 MB")
    parser.add_argument("--examples", action="store_true", help="the sentence cases: every claim's examples and the plain statements")
    parser.add_argument("--misses", metavar="FILE", help="with --examples: write the cases that fail to FILE (TOML)")


def run(args) -> int:
    return evaluate.evaluate(args)
