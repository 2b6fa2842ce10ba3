"""One normal form for every text the finder and the anchors compare: NFKC, case-folded,
traditional Chinese as simplified (OpenCC tw2sp: characters and Taiwan's words, 記憶體 is 内存),
no white space between two Chinese characters (共 享 is 共享), other white space runs as one
space, a typographic apostrophe inside a word as the plain one (can’t is can't); and a cue
phrase as the regular expression that matches it in that form."""
from __future__ import annotations

import functools
import re
import unicodedata


@functools.cache
def _t2s():
    import opencc
    return opencc.OpenCC("tw2sp")


_CJK_GAP = re.compile(r"(?<=[\u3400-\u9fff\u3000-\u303f\uff00-\uffef])\s+(?=[\u3400-\u9fff\u3000-\u303f\uff00-\uffef])")
_SPACES = re.compile(r"\s+")
# a typographic apostrophe inside a word (can’t, it’s) is the plain one the word lists and cues spell
_APOSTROPHE = re.compile(r"(?<=[a-z])[\u2019\u02bc](?=[a-z])")
_SQUEEZE = re.compile(r"[\s_\-]+")


def normal(text: str) -> str:
    """The normal form (see the module doc). A converted word may change its length, so a passage
    is matched as a whole unit, never by offsets into its normal form."""
    text = _APOSTROPHE.sub("'", unicodedata.normalize("NFKC", text).casefold())
    if any("\u3400" <= ch <= "\u9fff" for ch in text):
        text = _CJK_GAP.sub("", _t2s().convert(text))
    return _SPACES.sub(" ", text)


def is_cjk(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff"


@functools.cache
def phrase_pattern(phrase: str, strict: bool = False) -> str:
    """The regular expression of one cue phrase (see catalog.Cues). ``strict``: an underscore inside
    a word is itself (an ``unless`` phrase names an API: is_contiguous is not "memory is contiguous",
    no_grad not "no grad_fn")."""
    p = normal(phrase.strip())
    prefix = p.endswith("*")
    p = p.rstrip("*")
    parts = []
    for i, ch in enumerate(p):
        inner = 0 < i < len(p) - 1 and p[i - 1].isalnum() and p[i + 1].isalnum()
        if ch == "_" and inner and strict:
            parts.append("_")
        elif ch in " _-" and inner:   # num_workers, num workers, num-workers alike; __add__ keeps its underscores
            if parts and parts[-1] != r"[\s_\-]*":
                parts.append(r"[\s_\-]*")
        elif ch == " ":
            parts.append(r"\s*")
        elif ch == "*" and 0 < i < len(p) - 1:   # "more workers* is better": any ending inside a phrase
            parts.append(r"[a-z0-9_]*")
        else:   # Chinese characters literal: normal() took the spaces between them out
            parts.append(re.escape(ch))
    body = "".join(parts)
    # a word or an API name starts a word (_parameters is not named_parameters' tail)
    head = r"(?<![a-z0-9])" if p[:1].isascii() and (p[:1].isalnum() or p[:1] == "_") else ""
    # a word ending takes its plural (buffers, state dicts), a trailing * any ending; an API name
    # (pin_memory, x.view) needs no end boundary: a copy that lost its "=" glues it to its value
    # (pin_memoryTrue, num_workers0)
    api = any(c in p for c in "_.(") and p[-1:].isalpha()
    tail = "" if prefix or api or not (p[-1:].isascii() and p[-1:].isalnum()) else \
        (r"(?:e?s)?(?![a-z0-9])" if p[-1:].isalpha() else r"(?![a-z0-9])")
    return head + body + tail


@functools.cache
def key(phrase: str) -> str:
    """A phrase as a literal key: normalised, without white space, ``_`` or ``-`` (the automaton's
    form, see phrases.py)."""
    return _SQUEEZE.sub("", normal(phrase))


@functools.lru_cache(maxsize=4096)
def squeeze(norm: str) -> str:
    """A normal form without white space, ``_`` or ``-`` (kept for the last texts: the cues of every
    candidate claim squeeze the same passage)."""
    return _SQUEEZE.sub("", norm)


def longest_first(phrases) -> list[str]:
    """The distinct phrases in the order an alternation tries them: longest first; of equal length,
    a whole word before a prefix (``normalize`` before ``normaliz*``), then by the phrase itself.
    The order is total, so a match never depends on a set's iteration order (PYTHONHASHSEED)."""
    return sorted(set(phrases), key=lambda p: (-len(p), p.endswith("*"), p))


def alternation(phrases, strict: bool = False) -> re.Pattern:
    return re.compile("|".join(f"(?:{phrase_pattern(p, strict)})" for p in longest_first(phrases)))
