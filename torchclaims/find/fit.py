"""``python -m torchclaims finder-fit``: fit the finder's decision and measure its reliability.

The training rows are every candidate (passage, claim) the pipeline weighs (finder.candidates) in
three sources: the labelled set (``tests/finder_set/``), the four documents with their anchors
(each anchored span asserts its claim) and the catalog's example sentences (``[claim.examples]``:
asserts, denies and near). A candidate is positive when a label (anchor, example) of its claim
that asserts or denies it overlaps it. Two logistic regressions (scikit-learn, a development
dependency; the finder itself only reads the weights): whether the passage makes the claim, and,
for those that do, whether it denies it. The reliability table comes from 5-fold cross-validation
grouped by document, so each figure is measured on documents the fold's model was not fitted on.
Writes ``torchclaims/find/weights.json`` (or ``-o``) whole, through a temporary file.
"""
from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
import pathlib

from .. import anchors, catalog, files
from . import decide, evaluate, features, finder, similar
from .normal import normal

BINS = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0001)


@dataclasses.dataclass
class Row:
    group: str
    makes: list[float]
    denies: list[float]
    y_makes: int
    y_denies: int


def _placeholder() -> decide.Model:
    zero = decide.Logistic(features.MAKES, (0.0,) * len(features.MAKES), 0.0)
    return decide.Model(zero, decide.Logistic(features.DENIES, (0.0,) * len(features.DENIES), 0.0), {})


def documents_to_fit(claims: dict, seeds: bool = True) -> list[tuple[str, str, list[evaluate.Label]]]:
    """(group, text, labels) of every training document."""
    out = []
    docs, labels = evaluate.load_labels(evaluate.DEFAULT_SET)
    for name, doc in docs.items():
        out.append((f"set/{name}", doc.text, [lab for lab in labels if lab.document == name]))
    if seeds:
        out += [(f"seed/{seed}", text, labels) for seed, text, labels in evaluate.seed_documents()]
    for cid, claim in claims.items():
        if claim.examples is None:
            continue
        parts, labs, at = [], [], 0
        for kind in ("asserts", "denies", "near"):
            for sentence in getattr(claim.examples, kind):
                if kind != "near":
                    labs.append(evaluate.Label(cid, cid, kind, at, at + len(sentence)))
                parts.append(sentence)
                at += len(sentence) + 2
        out.append((f"examples/{claim.topic}", "\n\n".join(parts), labs))
    return out


class LeaveSelfOut(similar.Index):
    """The full index, but a passage is never compared with the example sentence it is part of
    (its siblings, the claim's other examples, stay): what a tutorial's new wording of a claim
    meets at reading time, where the catalog holds other sentences of that claim."""

    def __init__(self, texts):
        super().__init__(texts)
        self.norms = [normal(t) for _, _, t, _ in texts]
        self.example = [is_example for *_, is_example in texts]

    def _leave_out(self, norm: str, acc) -> None:
        key = norm.strip()
        for i, (text, is_example) in enumerate(zip(self.norms, self.example)):
            if is_example and key and key in text:
                acc[i] = 0.0

    def scores(self, norm: str):
        acc = self.cosines(norm)
        self._leave_out(norm, acc)
        return self.best(acc)

    def scores_many(self, norms: list[str]):
        """scores() of each passage, as the finder asks for them (similar.Index.scores_many)."""
        acc = self.cosines_many(norms)
        for row, norm in enumerate(norms):
            self._leave_out(norm, acc[row])
        return self.best(acc)


def rows(the_finder: finder.Finder, docs) -> list[Row]:
    """The candidates of every document as rows. An example sentence is weighed against the index
    without itself (LeaveSelfOut): a sentence is never compared with itself."""
    out = []
    full_index = the_finder.index
    leave_self_out = None
    for group, text, labels in docs:
        made = [lab for lab in labels if lab.stance != "mentions"]
        if group.startswith("examples/"):
            leave_self_out = leave_self_out or LeaveSelfOut(similar.claim_texts(the_finder.claims))
            the_finder.index = leave_self_out
        else:
            the_finder.index = full_index
        for c in the_finder.candidates(text):
            match = [lab for lab in made if lab.claim == c.claim and lab.start < c.end and c.start < lab.end]
            out.append(Row(group, [c.makes[n] for n in features.MAKES], [c.denies[n] for n in features.DENIES],
                           int(bool(match)), int(any(lab.stance == "denies" for lab in match))))
    return out


EXAMPLE_WEIGHT = 0.5   # an example sentence's weight in the stance fit: documents state stance by negation, examples by meaning


def _fit(x, y, weight=None):
    from sklearn.linear_model import LogisticRegression
    return LogisticRegression(C=1.0, max_iter=2000).fit(x, y, sample_weight=weight)


def _weights(rows_: list[Row]) -> list[float]:
    return [EXAMPLE_WEIGHT if r.group.startswith("examples/") else 1.0 for r in rows_]


def reliability(data: list[Row]) -> dict:
    """Out-of-fold probabilities (5 folds grouped by document): for each confidence bin, how many
    candidates and how many of them make the claim; and the stance accuracy above SHOWN."""
    from sklearn.model_selection import GroupKFold
    groups = [r.group.split("/")[0] + "/" + r.group.split("/")[1] for r in data]
    x = [r.makes for r in data]
    y = [r.y_makes for r in data]
    prob = [0.0] * len(data)
    deny_prob = [0.0] * len(data)
    for train, test in GroupKFold(n_splits=5).split(x, y, groups):
        model = _fit([x[i] for i in train], [y[i] for i in train])
        pos = [i for i in train if y[i]]
        stance = _fit([data[i].denies for i in pos], [data[i].y_denies for i in pos], _weights([data[i] for i in pos]))
        for i, p in zip(test, model.predict_proba([x[i] for i in test])[:, 1]):
            prob[i] = float(p)
        for i, q in zip(test, stance.predict_proba([data[i].denies for i in test])[:, 1]):
            deny_prob[i] = float(q)
    docs = [i for i, r in enumerate(data) if not r.group.startswith("examples/")]   # documents only
    table = []
    for lo, hi in zip(BINS, BINS[1:]):
        inside = [i for i in docs if lo <= prob[i] < hi]
        table.append({"from": lo, "to": min(hi, 1.0), "candidates": len(inside),
                      "right": sum(y[i] for i in inside)})
    above = [i for i in docs if prob[i] >= finder.SHOWN and y[i]]
    stance_right = sum(1 for i in above if (deny_prob[i] >= 0.5) == bool(data[i].y_denies))
    return {"bins": table, "stance_right": stance_right, "stance_of": len(above),
            "positives": sum(y[i] for i in docs), "found": len(above)}


def inputs_digest(claims: dict) -> str:
    """A digest of what the fit reads from the repository: every claim's cues and examples, the
    labelled set's labels and the anchors (the four documents themselves are not in the repository).
    weights.json records it; a test fails when the catalog moved on without a new fit."""
    h = hashlib.sha256()
    for cid, claim in sorted(claims.items()):
        h.update(json.dumps([cid, dataclasses.asdict(claim.find) if claim.find else None,
                             dataclasses.asdict(claim.examples) if claim.examples else None],
                            ensure_ascii=False, sort_keys=True).encode())
    for path in [evaluate.DEFAULT_SET / "labels.toml", *sorted(anchors.anchors_dir().glob("*.toml"))]:
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def fit(claims: dict, seeds: bool = True) -> dict:
    the_finder = finder.Finder(claims, model=_placeholder())
    data = rows(the_finder, documents_to_fit(claims, seeds))
    makes = _fit([r.makes for r in data], [r.y_makes for r in data])
    pos = [r for r in data if r.y_makes]
    denies = _fit([r.denies for r in pos], [r.y_denies for r in pos], _weights(pos))
    return {
        "makes": {"names": list(features.MAKES), "coef": [round(float(v), 4) for v in makes.coef_[0]],
                  "intercept": round(float(makes.intercept_[0]), 4)},
        "denies": {"names": list(features.DENIES), "coef": [round(float(v), 4) for v in denies.coef_[0]],
                   "intercept": round(float(denies.intercept_[0]), 4)},
        "fitted": {"date": datetime.date.today().isoformat(), "inputs": inputs_digest(claims),
                   "rows": len(data), "positives": len(pos),
                   "denials": sum(r.y_denies for r in pos),
                   "sources": "tests/finder_set labels, the four documents' anchors" * seeds + ", [claim.examples]",
                   "reliability": reliability(data)},
    }


def fit_command(args) -> int:
    """``finder-fit``: the options are torchclaims/commands/finder_fit.py's (``args`` holds them)."""
    claims = catalog.load_for_command()
    weights = fit(claims, seeds=not args.no_seeds)
    files.write_whole(pathlib.Path(args.output), json.dumps(weights, indent=1, ensure_ascii=False) + "\n")
    rel = weights["fitted"]["reliability"]
    print(f"wrote {args.output}: {weights['fitted']['rows']} rows, {weights['fitted']['positives']} positive")
    for b in rel["bins"]:
        share = b["right"] / b["candidates"] if b["candidates"] else 0.0
        print(f"  confidence {b['from']:.1f}-{b['to']:.1f}: {b['candidates']:5d} candidates, {share:.2f} right")
    return 0

