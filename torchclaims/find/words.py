"""The finder's language words as data: ``lang/en.toml`` and ``lang/zh.toml`` (negations, words
that only look negative, negating verbs, falsity, belief and myth markers, clause ends, contrasts,
barriers, hedges, pronouns, a code comment's step verbs), compiled once into the patterns the stance stage uses."""
from __future__ import annotations

import dataclasses
import functools
import pathlib
import re
import tomllib

from .normal import longest_first

HERE = pathlib.Path(__file__).resolve().parent


def _load(lang: str) -> dict:
    return tomllib.loads((HERE / "lang" / f"{lang}.toml").read_text(encoding="utf-8"))


def _words(words, boundary: bool) -> str:
    """An alternation of words, longest first; English ones as whole words."""
    parts = [r"\s+".join(map(re.escape, w.split())) for w in longest_first(words)]
    body = "|".join(parts)
    return rf"(?<![a-z0-9_])(?:{body})(?![a-z0-9_])" if boundary else f"(?:{body})"


def _verb(phrase: str) -> str:
    """A negating verb with its endings: stop, stops, stopped, stopping; disable, disabled."""
    first, *rest = phrase.split()
    stem = first[:-1] if first.endswith("e") else first
    body = rf"{re.escape(stem)}(?:e|es|ed|ing|s|ped|ping)?" if stem != first else \
        rf"{re.escape(stem)}(?:s|es|ed|ing|ped|ping)?"
    return body + "".join(rf"\s+{re.escape(w)}" for w in rest)


@dataclasses.dataclass(frozen=True)
class Words:
    negation_chars: str                 # Chinese characters that negate what follows
    not_negation: tuple[str, ...]       # Chinese words holding one that negate nothing
    negation: re.Pattern                # English negations (n't included)
    negating_verbs: re.Pattern          # both languages
    falsity: tuple[str, ...]
    belief: tuple[str, ...]
    myth: tuple[str, ...]
    next_false: re.Pattern              # "X, 这是错的" / "X. That is a myth."
    clause: re.Pattern                  # where a clause ends
    contrast: re.Pattern                # where a reported belief's reach ends
    barrier: re.Pattern                 # 只 / only: a negation before it is another verb's
    hedge: re.Pattern
    pronoun: re.Pattern                 # a sentence that opens with it points back
    step: re.Pattern                    # a code comment that opens with one labels a step
    prompt: re.Pattern                  # a sentence that opens with one asks, it does not state


@functools.cache
def words() -> Words:
    zh, en = _load("zh"), _load("en")
    negation = re.compile(r"(?<![a-z0-9_.])" + _words(en["negation"], False)[:-1] + r")(?![a-z0-9_(])|n't\b")
    verbs = re.compile("|".join(map(re.escape, zh["negating_verbs"])) + "|"
                       + "|".join(rf"\b{_verb(v)}\b" for v in en["negating_verbs"]))
    lead = _words(zh["next_false_lead"], False) + "|" + _words(en["next_false_lead"], True)
    word = _words(zh["next_false_word"], False) + "|" + _words(en["next_false_word"], True)
    next_false = re.compile(rf"[，,;；:：.。!！\s]*(?:{lead})\s*(?:完全|根本|并|其实)?\s*(?:{word})")
    clause = re.compile(r"[，,;；。.!?！？:：|\n]|" + _words(zh["clause_end"], False) + "|" + _words(en["clause_end"], True))
    contrast = re.compile(r"[。!?！？\n]|" + _words(zh["contrast"], False) + "|" + _words(en["contrast"], True))
    barrier = re.compile(_words(zh["barrier"], False) + rf"|{re.escape(zh['barrier_char'])}(?!要|有)|"
                         + _words(en["barrier"], True))
    hedge = re.compile(_words(zh["hedge"], False) + "|" + _words(en["hedge"], True))
    pronoun = re.compile(r"^\s*(?:" + _words(zh["pronoun"], False) + "|" + _words(en["pronoun"], True) + ")")
    step = re.compile(r"^\s*(?:" + _words(zh["step_verbs"], False) + "|" + _words(en["step_verbs"], True) + ")")
    prompt = re.compile(r"^\s*(?:[-*+•]\s*|\d{1,3}[.)、]\s*)?(?:" + _words(zh["prompt_verbs"], False) + "|"
                        + _words(en["prompt_verbs"], True) + ")")
    return Words(zh["negation_chars"], tuple(zh["not_negation"]), negation, verbs,
                 tuple(zh["falsity"] + en["falsity"]), tuple(zh["belief"] + en["belief"]), tuple(zh["myth"] + en["myth"]),
                 next_false, clause, contrast, barrier, hedge, pronoun, step, prompt)
