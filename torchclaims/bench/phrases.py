"""The report's sentences as data: a key of strings.py and its fields, rendered per language.

A verdict's reason is built once, from the measurement (``Phrase("why_weaker", what=...,
factor="0.52", ...)``), and rendered in the reader's language by that language's own template,
so a Chinese reason follows Chinese word order instead of substituting words in an English one.
A field may itself be a phrase (the side a figure lies on, the interval), rendered first.

What a benchmark recorded in English (a quantity, a scale, a method, a note, a summary table's
cells) is shown in Chinese through ``recorded``, a lookup in recorded_zh.RECORDED keyed by the
English text; one it lacks stays English and is added to ``UNTRANSLATED``, for the tests to list.
"""
from __future__ import annotations

import dataclasses
import functools
import re

from ..strings import text
from .recorded_zh import RECORDED

PREFIX = "bench_"   # the section of strings.py that holds the benchmark report's strings
UNTRANSLATED: set[str] = set()   # recorded texts a Chinese report had to show in English
_FIELD = re.compile(r"\{(\w+)\}")   # a measured figure in a key of RECORDED: "warm {warm} s"
_WORDS = re.compile(r"[a-z]{3}")     # a text without a word ("%", "MB", "> 1", "A100") is no English


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


@functools.cache
def _templates() -> tuple[tuple[re.Pattern, str], ...]:
    """The keys of RECORDED with figures in them, as patterns (a figure: any run of non-blanks)."""
    out = []
    for english, chinese in RECORDED.items():
        parts = _FIELD.split(english)       # text, name, text, name, ..., text
        if len(parts) > 1:
            pattern = "".join(re.escape(p) if i % 2 == 0 else rf"(?P<{p}>\S+?)" for i, p in enumerate(parts))
            out.append((re.compile(pattern), chinese))
    return tuple(out)


def recorded(lang: str, value):
    """What a benchmark recorded in English, in ``lang``: its translation in RECORDED (exact, or a
    key whose figures are fields), else as it is, noted in UNTRANSLATED. Not a text, or no English
    word in it (a number, a unit, a bound, a GPU's name): as it is."""
    if lang == "en" or not isinstance(value, str) or not _WORDS.search(value):
        return value
    if value in RECORDED:
        return RECORDED[value]
    for pattern, chinese in _templates():
        found = pattern.fullmatch(value)
        if found:
            return _FIELD.sub(lambda m, found=found: found[m[1]], chinese)
    UNTRANSLATED.add(value)
    return value
