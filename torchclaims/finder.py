"""The claim finder: where any text makes a claim of the catalog, with its stance and a confidence.

Deterministic and explainable. The text is cut into units by ``segment`` (a sentence, a heading,
a code line); a passage is one unit, or two or three consecutive units of one paragraph. Each
claim's cues (``[claim.find]`` in its catalog entry: ``catalog.Cues``) decide whether a passage
makes it: one of its ``subject`` phrases and one phrase of every ``says`` group, none of its
``unless`` phrases. Matching runs on a normalised form of the text (NFKC, case-folded,
traditional Chinese as simplified by OpenCC, Taiwan's words included), so a traditional-Chinese or full-width copy reads
the same.

Stance: the passage *asserts* the entry's ``says`` or *denies* it. The finder counts the
negations in the clause that leads to the passage's last ``says`` phrase (不, 没, 无, 非, 未,
not, never, n't, without...; words like 不同 and 非常 are no negation), a falsity marker after
it in the same clause (是错的, 误区, a myth, is wrong) and a marker before it that reports a
belief to be corrected (很多人以为, 误以为, people think). An odd count flips the statement; a
claim whose ``says`` is itself negated (``negated = true``) flips once more. A passage with the
subject and some but not all groups only *mentions* the claim.

Confidence (0 to 1) is a fixed sum of what the match rests on: the share of ``says`` groups hit,
a single sentence rather than a window, an API-like subject (``x.view(``, ``num_workers``), how
many groups there are; and it drops when several claims compete for one passage. Thresholds
were calibrated on the labelled set (tests/finder_set/); ``python -m torchclaims finder-eval``
prints precision, recall and stance accuracy there.
"""
from __future__ import annotations

import dataclasses
import functools
import re
import unicodedata

from . import catalog
from .segment import Sentences, comment_of

SPREAD = 80         # characters between a passage's first and last cue before confidence drops
RIVAL = 0.5         # a mark whose cues cover less than this share of a rival's on the same passage is hidden
SHOWN = 0.5          # the default threshold: marks below it are shown with --all only
MENTION = 0.35       # the confidence of a mention (below SHOWN: shown with --all)
WINDOW = 3           # units in a passage, at most

NEG_ZH = "不没无非未别勿莫"
NOT_NEG_ZH = ("不同", "不断", "不仅", "不少", "不久", "不过", "不错", "不管", "不但", "非常", "无论", "除非",
              "无疑", "不得不", "毫无疑问", "不妨", "莫过于", "别的", "别人", "无数", "非零", "非空", "区别", "分别",
              "特别", "无关紧要", "并无二致", "不论", "无所谓", "类别", "级别", "识别", "差别", "个别", "性别",
              "别名", "告别", "无损", "不变")
NEG_EN = re.compile(r"(?<![a-z0-9_.])(?:not|no|never|cannot|neither|nor|none|nothing|without|nobody|nowhere"
                    r"|instead of|rather than)(?![a-z0-9_(])|n't\b|\bcan ?not\b")
# verbs that negate what follows them: "停止记录" is "不记录", "stops tracking" is "does not track"
NEG_VERBS = re.compile(r"停止|暂停|不再|停用|禁用|关闭|避免|防止|\bavoid(?:s|ed|ing)?\b|\bprevent(?:s|ed|ing)?\b"
                       r"|\bstop(?:s|ped|ping)?\b|\bpaus(?:e|es|ed|ing)\b"
                       r"|\bdisabl(?:e|es|ed|ing)\b|\bturn(?:s|ed)? off\b|\bswitch(?:es|ed)? off\b")
FALSITY = ("是错的", "是错误的", "错误的", "不对", "不成立", "误区", "误解", "谬误", "谣言", "以讹传讹", "的说法", "这种说法",
           "is wrong", "are wrong", "is false", "a myth", "myth", "misconception", "not true", "incorrect",
           "is a mistake", "mistaken")
# before a statement: it is reported as somebody's belief (to be corrected)
BELIEF = ("以为", "误认为", "误以为", "听说", "人说", "常说", "一种说法", "有种说法", "有的说法", "网上说", "都说", "据说",
          "传言", "流传", "人认为", "人觉得", "条说", "people think", "people believe", "people say", "some say",
          "it is often said", "often said", "is often described", "often described as", "commonly believed",
          "widely believed", "you may have heard", "you might think", "you may read", "you'll often read",
          "you will often read", "many think", "many believe", "many tutorials", "some tutorials", "is often claimed",
          "claimed", "claims that", "claim that", "a common belief", "contrary to", "supposedly", "folklore",
          "文章说", "文章写", "有人写", "说法是", "一个坑", "不能说", "并不是说", "insisted", "insists", "advice says",
          "rule says", "often say", "described as", "you will also find", "you'll also find", "is said to",
          "some claim", "it is claimed", "rumor", "rumour", "it is not true that", "it's not true that")
# before a statement: a myth named as such; a negated statement after it is the correction, not the myth
MYTH = ("误区", "误解", "误会", "谣言", "错误说法", "错误观点", "错误认知", "myth", "misconception",
        "wrong belief", "a common mistake", "a common misunderstanding")
CLAUSE = re.compile(r"[，,;；。.!?！？:：|\n]|但是|但|然而|而是|却|其实|实际上|事实上|\bbut\b|\bhowever\b|\bactually\b"
                    r"|\bin fact\b|\bwhereas\b")
CONTRAST = re.compile(r"[。!?！？\n]|但是|但|然而|而是|却|其实|实际上|事实上|\bbut\b|\bhowever\b|\bactually\b"
                      r"|\bin fact\b|\bwhereas\b|\bin reality\b")
SCOPE = 14   # how far before a cue a negation may stand: CJK characters count 1, other characters 0.4
BARRIER = re.compile(r"只是|仅仅|只(?!要|有)|仅|\bonly\b|\bjust\b|\bmerely\b")   # 不搬数据只交换: the negation is another verb's
API_LIKE = re.compile(r"[._(]|[a-z][A-Z]|^[A-Z][a-z]+[A-Z]")


@dataclasses.dataclass(frozen=True)
class Mark:
    claim: str
    start: int
    end: int
    stance: str
    confidence: float
    why: str          # the cues that matched, for a reader who asks
    evidence: int = 0  # characters of the passage its says cues matched: a sibling with far fewer loses


# ---------------------------------------------------------------- normalising and matching

@functools.cache
def _t2s():
    import opencc
    return opencc.OpenCC("tw2sp")   # characters and Taiwan's words: 記憶體 is 内存, 預設值 is 默认值


def normal(text: str) -> str:
    """NFKC, case-folded, traditional Chinese made simplified (characters and the Taiwanese words
    for memory, default, process...: OpenCC tw2sp), no white space between two Chinese characters
    (共 享 is 共享), other white space runs as one space. A passage is matched as a whole unit, so a
    converted word may change its length."""
    text = unicodedata.normalize("NFKC", text).casefold()
    if any("\u3400" <= ch <= "\u9fff" for ch in text):
        text = _CJK_GAP.sub("", _t2s().convert(text))
    return _SPACES.sub(" ", text)


_CJK_GAP = re.compile(r"(?<=[\u3400-\u9fff\u3000-\u303f\uff00-\uffef])\s+(?=[\u3400-\u9fff\u3000-\u303f\uff00-\uffef])")
_SPACES = re.compile(r"\s+")


def _is_cjk(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff"


@functools.cache
def phrase_pattern(phrase: str) -> str:
    """The regular expression of one cue phrase (see catalog.Cues)."""
    p = normal(phrase.strip())
    prefix = p.endswith("*")
    p = p.rstrip("*")
    parts = []
    for i, ch in enumerate(p):
        inner = 0 < i < len(p) - 1 and p[i - 1].isalnum() and p[i + 1].isalnum()
        if ch in " _-" and inner:   # num_workers, num workers, num-workers alike; __add__ keeps its underscores
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


_SQUEEZE = re.compile(r"[\s_\-]+")


def _key(phrase: str) -> str:
    """A phrase as a literal key: normalised, without white space, ``_`` or ``-``."""
    return _SQUEEZE.sub("", normal(phrase))


def _alternation(phrases) -> re.Pattern:
    return re.compile("|".join(f"(?:{phrase_pattern(p)})" for p in sorted(set(phrases), key=len, reverse=True)))


@dataclasses.dataclass
class _Group:
    plain: re.Pattern | None       # phrases that state the group's part of the claim
    opposite: re.Pattern | None    # "!" phrases: they state its opposite (深拷贝 against 共享)

    def first(self, norm: str, besides: tuple[int, int] = (0, 0)) -> tuple[re.Match, bool] | None:
        """The group's first match in ``norm`` other than the subject's own match ``besides``, and whether
        it is an opposite phrase (the statement about a claim comes first; what follows a 其实 or a
        but is usually the correction)."""
        best = None
        for pattern, flipped in ((self.plain, False), (self.opposite, True)):
            for m in pattern.finditer(norm) if pattern is not None else ():
                if m.span() == besides:
                    continue    # the subject's own words, matched again, state nothing ("4096" for "4096")
                if best is None or m.start() < best[0].start():
                    best = (m, flipped)
                break
        return best


def _group(phrases) -> _Group:
    plain = [p for p in phrases if not p.startswith("!")]
    opposite = [p[1:] for p in phrases if p.startswith("!")]
    return _Group(_alternation(plain) if plain else None, _alternation(opposite) if opposite else None)


@dataclasses.dataclass
class _Claim:
    id: str
    cues: catalog.Cues
    subject: re.Pattern
    groups: list[_Group]
    unless: re.Pattern | None
    api: bool


class Finder:
    """The catalog's cues, compiled once; ``find(text)`` gives the marks."""

    def __init__(self, claims: dict[str, catalog.Claim]):
        self.cues = {cid: claim.find for cid, claim in claims.items() if claim.find is not None}
        self._compiled: dict[str, _Claim] = {}
        # the subjects as literal keys (normalised, without white space, _ or -): a substring test
        # finds the candidates fast, the subject's pattern then confirms them
        self._keys: dict[str, set[str]] = {}
        for cid, cues in self.cues.items():
            for phrase in cues.subject:
                self._keys.setdefault(_key(phrase.rstrip("*")), set()).add(cid)

    def claim(self, cid: str) -> _Claim:
        """One claim's cues as patterns, compiled the first time a passage names its subject."""
        compiled = self._compiled.get(cid)
        if compiled is None:
            cues = self.cues[cid]
            compiled = self._compiled[cid] = _Claim(
                cid, cues, _alternation(cues.subject), [_group(g) for g in cues.says],
                _alternation(cues.unless) if cues.unless else None, any(API_LIKE.search(s) for s in cues.subject))
        return compiled

    def _candidates(self, keyed: str, present: list[tuple[str, set[str]]]) -> set[str]:
        found: set[str] = set()
        for key, cids in present:
            if key in keyed:
                found |= cids
        return found

    def find(self, text: str, sentences: Sentences | None = None, progress=None) -> list[Mark]:
        """Every mark in ``text``: for each claim, its passages, best first, none overlapping."""
        sentences = sentences or Sentences(text)
        units = sentences.units
        # a code line states something only through its comment; one without a comment can still
        # give the subject of the commented line after it (y = x.t() / y[0, 0] = 9  # x changes too)
        states = [u.kind != "code" or comment_of(text[u.start:u.end]) is not None for u in units]
        norms = [normal(text[u.start:u.end]) for u in units]
        keyed = [_SQUEEZE.sub("", n) for n in norms]
        whole = "\x00".join(keyed)
        present = [(k, cids) for k, cids in self._keys.items() if k and k in whole]
        cands = [self._candidates(k, present) for k in keyed]
        raw: list[Mark] = []
        for i, unit in enumerate(units):
            if progress and i % 500 == 0:
                progress(unit.start, len(text))
            for cid in cands[i]:
                claim = self.claim(cid)
                mark = None
                for width in range(1, WINDOW + 1):
                    j = i + width - 1
                    if j >= len(units) or units[j].block != unit.block or units[j].kind != unit.kind:
                        break
                    if not states[j]:
                        continue
                    norm = " ".join(norms[i:j + 1])
                    mark = self._judge(claim, norm, units[i].start, units[j].end, width)
                    if mark is not None and mark.stance != "mentions":
                        break
                    if mark is not None and width == 1 and norm.rstrip().endswith(("?", "？")):
                        break   # a question states nothing: it stays a mention
                if mark is not None:
                    raw.append(mark)
        return _resolve(raw)

    def _judge(self, claim: _Claim, norm: str, start: int, end: int, width: int) -> Mark | None:
        subject = claim.subject.search(norm)
        if subject is None:
            return None
        if claim.unless is not None and claim.unless.search(norm):
            return None
        hits = [g.first(norm, subject.span()) for g in claim.groups]
        found = [h for h in hits if h is not None]
        if not claim.groups or len(found) < len(claim.groups):
            if width > 1 or (not found and len(claim.groups) > 1):
                return None
            return Mark(claim.id, start, end, "mentions", MENTION * (len(found) + 1) / (len(claim.groups) + 1),
                        f"subject {subject.group(0)!r}, {len(found)} of {len(claim.groups)} groups")
        if norm.rstrip().endswith(("?", "？")) and width == 1:
            return Mark(claim.id, start, end, "mentions", MENTION, f"subject {subject.group(0)!r}; a question")
        last = max([m for m, _ in found], key=lambda m: m.end())
        first = min(m.start() for m, _ in found)
        spans = [(m.start(), m.end()) for m, _ in found] + [(subject.start(), subject.end())]
        flips = _flips(norm, last, first, spans) + sum(flipped for _, flipped in found)
        stance = "denies" if (flips % 2 == 1) != claim.cues.negated else "asserts"
        # the cues of a long passage may belong to different statements: the farther apart, the less sure
        spread = max(m.end() for m, _ in found + [(subject, False)]) - min(m.start() for m, _ in found + [(subject, False)])
        confidence = 0.45 + 0.1 * min(len(claim.groups), 3) / 3 + (0.2 if width == 1 else 0.1 if width == 2 else 0.0) \
            + (0.1 if claim.api else 0.0) + (0.05 if len(subject.group(0)) >= 6 else 0.0) \
            - min(0.3, max(0, spread - SPREAD) / 400)
        why = f"subject {subject.group(0)!r}; " + ", ".join(("!" if f else "") + repr(m.group(0)) for m, f in found)
        if flips:
            why += f"; {flips} flip(s)"
        return Mark(claim.id, start, end, stance, min(confidence, 0.99), why,
                    sum(m.end() - m.start() for m, _ in found) + (subject.end() - subject.start()))


def _negations(clause: str, skip: list[tuple[int, int]], offset: int) -> int:
    count = 0
    for i, ch in enumerate(clause):
        if ch in NEG_ZH and not any(a <= i + offset < b for a, b in skip):
            if any(i - k >= 0 and clause.startswith(w, i - k) for w in NOT_NEG_ZH for k in range(len(w)) if w[k] == ch):
                continue
            if ch == "不" and clause.startswith("不再", i):
                continue    # counted once, as a negating verb, below
            count += 1
    for pattern in (NEG_EN, NEG_VERBS):
        for m in pattern.finditer(clause):
            if not any(a <= m.start() + offset < b for a, b in skip):
                count += 1
    return count


def _scope_start(norm: str, floor: int, at: int) -> int:
    """Where the negation scope of a cue at ``at`` begins: SCOPE back, CJK characters weighing 1
    and others 0.4 (an English word is several characters), never before ``floor``."""
    weight, i = 0.0, at
    while i > floor and weight < SCOPE:
        i -= 1
        weight += 1.0 if _is_cjk(norm[i]) else 0.4
    return i


def _flips(norm: str, last: re.Match, first: int, spans: list[tuple[int, int]]) -> int:
    """Negations, falsity and belief markers around the passage's cues (see the module doc):
    negations in the clause of the last cue, from SCOPE before the first ``says`` cue of that
    clause (and not before 只/only); a falsity marker after it in that clause; a belief marker
    before it with no contrast word (其实, but, actually) in between; a myth marker there, unless
    the statement after it is itself negated (then it is the correction)."""
    starts = [m.end() for m in CLAUSE.finditer(norm, 0, last.start())]
    clause_start = starts[-1] if starts else 0
    ends = [m.start() for m in CLAUSE.finditer(norm, last.end())]
    clause_end = ends[0] if ends else len(norm)
    scope = _scope_start(norm, clause_start, max(first, clause_start) if first >= clause_start else last.start())
    barriers = [m.end() for m in BARRIER.finditer(norm, scope, last.start())]
    scope = barriers[-1] if barriers else scope
    negations = _negations(norm[scope:last.end()], spans, scope)
    turns = [m.end() for m in CONTRAST.finditer(norm, 0, last.start())]
    segment = norm[turns[-1] if turns else 0:last.start()]
    reported = (any(w in norm[last.end():clause_end] for w in FALSITY) or bool(NEXT_FALSE.match(norm, clause_end))
                or any(w in segment for w in BELIEF)
                or (not negations and any(w in segment for w in MYTH)) or _quoted_heading(norm, last))
    return negations + reported     # "有人说 X，这是错的" reports one myth: one flip, not two


# the next clause calls the statement false: "X，这是错的", "X, which is wrong", "X. That is a myth."
NEXT_FALSE = re.compile(r"[，,;；:：.。!！\s]*(?:这是|这个说法|这种说法|这句话|这个|这|那是|this is|that is|that's|this's|which is)"
                        r"\s*(?:完全|根本|并|其实)?\s*(?:错的|错误的|不对|不成立|误解|误区|谣言|wrong|false|incorrect"
                        r"|a myth|not true|a misconception)")


QUOTES = {"“": "”", '"': '"', "「": "」", "『": "』", "‘": "’"}


def _quoted_heading(norm: str, last: re.Match) -> bool:
    """A heading that quotes the statement (## 3. "no_grad cuts memory by 37%"): a myth put up to be
    examined, not the heading's own statement."""
    if not norm.lstrip().startswith("#"):
        return False
    for left, right in QUOTES.items():
        opened = norm.rfind(left, 0, last.start())
        if opened >= 0 and norm.find(right, last.end()) >= 0 and (left != right or norm.count(left, 0, last.start()) % 2):
            return True
    return False


def _resolve(raw: list[Mark]) -> list[Mark]:
    """One mark per claim and passage, no two marks of a claim overlapping; where several claims
    compete for the same passage, one whose cues matched far less of it than a rival's is hidden."""
    raw.sort(key=lambda m: (-(m.stance != "mentions"), -m.confidence, m.end - m.start, m.start, m.claim))
    kept: list[Mark] = []
    taken: dict[str, list[tuple[int, int]]] = {}
    for m in raw:
        spans = taken.setdefault(m.claim, [])
        if any(a < m.end and m.start < b for a, b in spans):
            continue
        spans.append((m.start, m.end))
        kept.append(m)
    by_span: dict[tuple[int, int], list[Mark]] = {}
    for m in kept:
        if m.stance != "mentions":
            by_span.setdefault((m.start, m.end), []).append(m)
    out = []
    for m in kept:
        rivals = by_span.get((m.start, m.end), [])
        if m.stance != "mentions" and len(rivals) > 1:
            best = max(r.evidence for r in rivals)
            if m.evidence < RIVAL * best:   # a sibling matched far more of this passage: it is the one made here
                m = dataclasses.replace(m, confidence=min(m.confidence, SHOWN - 0.01), why=m.why + "; a rival matched more")
        out.append(m)
    out.sort(key=lambda m: (m.start, m.end, m.claim))
    return out


def verdict(stance: str, material: str) -> str:
    """What the passage's statement is on a torch where the claim's material verdict is
    ``material`` (right, wrong, partly or anything else: not measured)."""
    if stance == "mentions" or material not in ("right", "wrong", "partly"):
        return "not measured"
    if material == "partly" or stance == "asserts":
        return material
    return "right" if material == "wrong" else "wrong"
