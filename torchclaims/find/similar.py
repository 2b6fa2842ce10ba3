"""How alike a passage and each claim's texts are: character n-gram TF-IDF cosine (Latin runs as
3- and 4-grams inside word boundaries, the way scikit-learn's ``char_wb`` cuts them; CJK runs as
bigrams). A claim's texts are its ``says`` in both languages and its example sentences (those that
assert it, those that deny it, apart); a passage's similarity to a claim is its best cosine with
any of them. n-grams found in more than MAX_DF of all texts carry no weight (they are the language,
not the subject), which also keeps the inverted index short."""
from __future__ import annotations

import collections
import functools
import hashlib
import itertools
import json
import math
import pathlib
import re

import numpy

from .normal import normal

MAX_DF = 0.08
_LATIN = re.compile(r"[a-z0-9_.]+")
_CJK = re.compile(r"[\u3400-\u9fff]+")


def grams(norm: str) -> collections.Counter:
    # every n-gram in order (Latin runs, then CJK runs), counted at once
    every: list[str] = []
    for word in _LATIN.findall(norm):
        every += _word_grams(word)
    for run in _CJK.findall(norm):
        every += _run_grams(run)
    return collections.Counter(every)


@functools.lru_cache(maxsize=65536)
def _word_grams(word: str) -> tuple[str, ...]:
    """A Latin run's 3- and 4-grams inside its word boundaries, in order (a word is cut once)."""
    w = f" {word} "
    return tuple(w[i:i + n] for n in (3, 4) for i in range(max(1, len(w) - n + 1)))


@functools.lru_cache(maxsize=65536)
def _run_grams(run: str) -> tuple[str, ...]:
    """A CJK run's bigrams in order (a lone character stands for itself)."""
    return ((run,) if len(run) == 1 else ()) + tuple(run[i:i + 2] for i in range(len(run) - 1))


CACHE = pathlib.Path(__file__).resolve().parents[2] / "build" / "cache"   # build/ is ignored by git


class Index:
    """The claims' texts as TF-IDF vectors with an inverted index (NumPy arrays per n-gram);
    ``scores(text)`` gives, for each claim with any shared n-gram, (best cosine with an asserting
    text, best with a denying one)."""

    @classmethod
    def cached(cls, texts: list[tuple[str, str, str, bool]], folder: pathlib.Path = CACHE) -> "Index":
        """The index of ``texts``, read from ``folder`` when it was built for the same texts (a
        digest names the file), else built and written there; a read-only checkout builds it."""
        digest = hashlib.sha256(json.dumps(texts, ensure_ascii=False).encode()).hexdigest()[:16]
        path = folder / f"similar-{digest}.npz"
        try:
            with numpy.load(path, allow_pickle=False) as data:
                return cls._from_arrays(data)
        except (OSError, ValueError, KeyError):
            pass
        index = cls(texts)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp.npz")
            numpy.savez(tmp, **index._arrays())
            tmp.replace(path)
        except OSError:
            pass
        return index

    def _arrays(self) -> dict:
        grams = list(self.postings)
        lengths = [len(self.postings[g][0]) for g in grams]
        return {"meta": numpy.array(json.dumps({"grams": grams, "idf": [self.idf[g] for g in grams],
                                                "owner": self.owner, "claims": self.claims})),
                "lengths": numpy.array(lengths, dtype=numpy.int64),
                "idx": numpy.concatenate([self.postings[g][0] for g in grams]) if grams else numpy.zeros(0, numpy.int32),
                "weight": numpy.concatenate([self.postings[g][1] for g in grams]) if grams else numpy.zeros(0),
                "slot": self.slot}

    @classmethod
    def _from_arrays(cls, data) -> "Index":
        meta = json.loads(str(data["meta"]))
        index = cls.__new__(cls)
        index.idf = dict(zip(meta["grams"], meta["idf"]))
        index.owner = [tuple(o) for o in meta["owner"]]
        index.claims = meta["claims"]
        index.size = len(index.owner)
        index.slot = data["slot"]
        lengths = data["lengths"].tolist()
        starts = list(itertools.accumulate([0] + lengths[:-1])) if lengths else []
        index._flat(meta["grams"], data["idx"], data["weight"], starts, lengths)
        return index

    def __getattr__(self, name: str):
        # an index read from the cache has its postings in the flat arrays only (a read needs no
        # more); the per n-gram view is made when something asks for it
        if name != "postings" or "_at" not in self.__dict__:
            raise AttributeError(name)
        self.postings = {g: (self._idx[a:a + n], self._weight[a:a + n]) for g, (a, n) in self._at.items()}
        return self.postings

    def _flat(self, grams: list[str], idx: numpy.ndarray, weight: numpy.ndarray, starts: list[int],
              lengths: list[int]) -> None:
        """Every posting in two arrays, each n-gram's at (start, length): a passage's postings are
        gathered in a few array operations, not one per n-gram."""
        self._idx, self._weight = idx, weight
        self._at = {g: (a, n) for g, a, n in zip(grams, starts, lengths)}

    def __init__(self, texts: list[tuple[str, str, str, bool]]):
        """``texts``: (claim id, kind 'asserts' or 'denies', sentence, whether it is an example)."""
        counted = [(cid, kind, grams(normal(t))) for cid, kind, t, _ in texts]
        df: collections.Counter = collections.Counter()
        for _, _, g in counted:
            df.update(g.keys())
        n = len(counted)
        self.idf = {g: math.log((1 + n) / (1 + c)) + 1 for g, c in df.items() if c <= MAX_DF * n}
        self.owner = [(cid, kind) for cid, kind, _ in counted]
        postings: dict[str, list[tuple[int, float]]] = collections.defaultdict(list)
        for i, (_, _, g) in enumerate(counted):
            for gram, weight in self._weights(g).items():
                postings[gram].append((i, weight))
        self.postings = {g: (numpy.array([i for i, _ in p], dtype=numpy.int32), numpy.array([w for _, w in p]))
                         for g, p in postings.items()}
        self.size = n
        self.claims = list(dict.fromkeys(cid for cid, _ in self.owner))
        index = {cid: k for k, cid in enumerate(self.claims)}
        # where each text's cosine goes: its claim's slot, asserting texts in the first half
        self.slot = numpy.array([index[cid] + (len(self.claims) if kind == "denies" else 0)
                                 for cid, kind in self.owner], dtype=numpy.int64)
        names = list(self.postings)
        lengths = [len(self.postings[g][0]) for g in names]
        starts = list(itertools.accumulate([0] + lengths[:-1])) if lengths else []
        self._flat(names, numpy.concatenate([self.postings[g][0] for g in names]) if names else numpy.zeros(0, numpy.int32),
                   numpy.concatenate([self.postings[g][1] for g in names]) if names else numpy.zeros(0), starts, lengths)

    def _weights(self, g: collections.Counter) -> dict[str, float]:
        vec = {k: (1 + math.log(c)) * self.idf[k] for k, c in g.items() if k in self.idf}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        return {k: v / norm for k, v in vec.items()}

    def cosines(self, norm: str) -> numpy.ndarray:
        """The passage's cosine with each text of the index."""
        at = self._at
        hits = [(at[g], w) for g, w in self._weights(grams(norm)).items() if g in at]
        if not hits:
            return numpy.zeros(self.size)
        # one weighted bincount over every posting the passage's n-grams reach, in the n-grams' order
        starts = numpy.array([a for (a, _), _ in hits], dtype=numpy.int64)
        lengths = numpy.array([n for (_, n), _ in hits], dtype=numpy.int64)
        total = int(lengths.sum())
        first = numpy.cumsum(lengths) - lengths   # where each n-gram's postings start in the gathered array
        where = numpy.repeat(starts - first, lengths) + numpy.arange(total)
        weights = self._weight[where] * numpy.repeat(numpy.array([w for _, w in hits]), lengths)
        return numpy.bincount(self._idx[where], weights=weights, minlength=self.size)

    def cosines_many(self, norms: list[str]) -> numpy.ndarray:
        """cosines() of each passage, as the rows of one array: one weighted bincount over the
        postings of them all, each row's bin offset by its row, so that each cell sums the same
        products in the same order as cosines() of its passage alone (the same floating-point sum)."""
        at = self._at
        starts: list[int] = []
        lengths: list[int] = []
        weights: list[float] = []
        rows: list[int] = []
        for row, norm in enumerate(norms):
            vec = self._weights(grams(norm))
            found = [g for g in vec if g in at]
            if found:
                spans = list(map(at.__getitem__, found))
                starts += [a for a, _ in spans]
                lengths += [n for _, n in spans]
                weights += map(vec.__getitem__, found)
                rows += [row * self.size] * len(found)
        if not starts:
            return numpy.zeros((len(norms), self.size))
        length = numpy.array(lengths, dtype=numpy.int64)
        first = numpy.cumsum(length) - length
        where = numpy.repeat(numpy.array(starts, dtype=numpy.int64) - first, length) + numpy.arange(int(length.sum()))
        products = self._weight[where] * numpy.repeat(numpy.array(weights), length)
        bins = self._idx[where] + numpy.repeat(numpy.array(rows, dtype=numpy.int64), length)
        return numpy.bincount(bins, weights=products, minlength=len(norms) * self.size).reshape(len(norms), self.size)

    def scores(self, norm: str) -> tuple[numpy.ndarray, numpy.ndarray]:
        """Per claim of ``self.claims``: the best cosine with an asserting text, with a denying one."""
        return self.best(self.cosines(norm))

    def scores_many(self, norms: list[str]) -> tuple[numpy.ndarray, numpy.ndarray]:
        """scores() of each passage, as the rows of two arrays (the same numbers)."""
        return self.best(self.cosines_many(norms))

    def best(self, acc: numpy.ndarray) -> tuple[numpy.ndarray, numpy.ndarray]:
        # each slot's largest cosine, and 0 where it has none or none above 0: the texts sorted by
        # slot once, then one maximum per run of a slot's texts (acc: one passage's cosines, or
        # one row per passage)
        if getattr(self, "_runs", None) is None:
            order = numpy.argsort(self.slot, kind="stable")
            slots, firsts = numpy.unique(self.slot[order], return_index=True)
            self._runs = (order, slots, firsts)
        order, slots, firsts = self._runs
        best = numpy.zeros((*acc.shape[:-1], 2 * len(self.claims)))
        if len(order):
            best[..., slots] = numpy.maximum(numpy.maximum.reduceat(acc[..., order], firsts, axis=-1), 0.0)
        return best[..., :len(self.claims)], best[..., len(self.claims):]


def claim_texts(claims) -> list[tuple[str, str, str, bool]]:
    """Every claim's texts for the index: says, says_zh and the asserting examples as 'asserts',
    the denying examples as 'denies'; the last field says whether the text is an example."""
    out = []
    for cid, claim in claims.items():
        out += [(cid, "asserts", claim.says, False), (cid, "asserts", claim.says_zh, False)]
        if claim.examples is not None:
            out += [(cid, "asserts", s, True) for s in claim.examples.asserts]
            out += [(cid, "denies", s, True) for s in claim.examples.denies]
    return out
