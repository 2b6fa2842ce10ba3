"""``python -m torchclaims mutants``: run the specs once per planted fault, report score and coverage."""
from __future__ import annotations

from .. import mutants_run

DESCRIPTION = mutants_run.__doc__.splitlines()[0]


def add_arguments(parser) -> None:
    parser.add_argument("names", nargs="*", metavar="FAULT", help="run only these faults")
    parser.add_argument("--topic", action="append", default=[],
                        help="only the faults (and, for coverage, the claims) of this topic (repeatable)")
    parser.add_argument("--fast", action="store_true", help="one fault per topic (the CI subset)")
    report = parser.add_mutually_exclusive_group()
    report.add_argument("--list", action="store_true", help="list the faults and exit")
    report.add_argument("--coverage", action="store_true", help="report claim coverage only, run nothing")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="faults run at once (default 2)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per fault (default 600)")
    parser.add_argument("-v", "--verbose", action="store_true", help="show the pytest tail of every fault")


def run(args) -> int:
    return mutants_run.run_faults(args)
