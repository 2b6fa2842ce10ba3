"""The report's sentences as data: a key of strings.py and its fields, rendered per language.

A verdict's reason is built once, from the measurement (``Phrase("why_weaker", what=...,
factor="0.52", ...)``), and rendered in the reader's language by that language's own template,
so a Chinese reason follows Chinese word order instead of substituting words in an English one.
A field may itself be a phrase (the side a figure lies on, the interval), rendered first.
"""
from __future__ import annotations

import dataclasses

from ..strings import text

PREFIX = "bench_"   # the section of strings.py that holds the benchmark report's strings


@dataclasses.dataclass(frozen=True)
class Phrase:
    key: str
    fields: tuple = ()

    def text(self, lang: str = "en") -> str:
        fields = {name: render(value, lang) for name, value in self.fields}
        return text(lang, PREFIX + self.key, **fields)


def phrase(key: str, **fields) -> Phrase:
    return Phrase(key, tuple(fields.items()))


def render(value, lang: str = "en"):
    """A phrase in ``lang``; anything else (a formatted number, a name, a count) as it is."""
    return value.text(lang) if isinstance(value, Phrase) else value


def say(lang: str, key: str, **fields) -> str:
    """One string of the report's section of strings.py, its phrase fields rendered in ``lang``."""
    return phrase(key, **fields).text(lang)
