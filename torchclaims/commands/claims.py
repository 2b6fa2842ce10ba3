"""``python -m torchclaims claims``: list the catalog."""
from __future__ import annotations

from .. import catalog, catalog_view
from ..errors import UsageError
from ..strings import default_lang, text, verdict_from_word
from . import options


def verdict_type(word: str) -> str:
    """``--verdict``'s value: a verdict in either language (``strings.verdict_from_word``)."""
    verdict = verdict_from_word(word)
    if verdict is None:
        lang = default_lang()
        raise UsageError(text(lang, "unknown_verdict", word=word, labels=(", " if lang == "en" else "、").join(catalog.VERDICTS),
                              zh="、".join(text("zh", v) for v in catalog.VERDICTS)))
    return verdict


def add_arguments(parser) -> None:
    parser.add_argument("--topic")
    parser.add_argument("--verdict", type=verdict_type, metavar="VERDICT",
                        help=f"the catalog's label ({', '.join(catalog.VERDICTS)}); " + text("en", "verdict_alias")
                        + "; Chinese words too (错误, 属实, 部分正确...)")
    options.lang(parser)
    parser.add_argument("--format", choices=("table", "json", "markdown"), default="table")


def run(args) -> int:
    return catalog_view.claims_listing(args.topic, args.verdict, args.lang, args.format)
