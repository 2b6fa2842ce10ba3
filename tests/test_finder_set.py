"""The finder's labelled set (tests/finder_set/) is itself well-formed: documents exist, claim ids
are the catalog's, stances are known, and every passage is where its label says it is.

This checks the set, not the finder.  Each check is shown to fail on a planted fault."""
from __future__ import annotations

import dataclasses
import html.parser
import json
import pathlib
import tomllib

import pytest

from torchclaims import catalog

SET = pathlib.Path(__file__).resolve().parent / "finder_set"
STANCES = ("asserts", "denies", "mentions")
OFFSET_KINDS = (".md", ".txt", ".rst")   # labels carry start/end into the file's text
PASSAGE_KINDS = (".ipynb", ".html")      # labels carry the passage only
MIN_LABELS, MIN_DOCUMENTS, MIN_LABELS_PER_DOCUMENT = 150, 12, 8


class VisibleText(html.parser.HTMLParser):
    """The text nodes of a page outside <script> and <style>, one string per node."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.nodes: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._hidden += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._hidden = max(0, self._hidden - 1)

    def handle_data(self, data):
        if not self._hidden:
            self.nodes.append(data)


def pieces(path: pathlib.Path) -> list[str]:
    """Where a passage of this document may lie: the whole text, each cell's source, or each
    visible text node of a page."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        notebook = json.loads(text)
        assert notebook.get("nbformat") == 4, f"{path.name}: nbformat={notebook.get('nbformat')}, should be 4"
        return ["".join(cell["source"]) for cell in notebook["cells"]]
    if path.suffix == ".html":
        parser = VisibleText()
        parser.feed(text)
        return parser.nodes
    return [text]


@dataclasses.dataclass
class LabelSet:
    labels: list[dict]
    docs: pathlib.Path


def load_set(root: pathlib.Path = SET) -> LabelSet:
    data = tomllib.loads((root / "labels.toml").read_text(encoding="utf-8"))
    return LabelSet(data.get("label", []), root / "docs")


def problems(label_set: LabelSet, claim_ids: set[str]) -> list[str]:
    """Every way a label is wrong, one line each, naming the label."""
    found: list[str] = []
    cache: dict[str, list[str]] = {}
    for n, label in enumerate(label_set.labels, 1):
        doc = label.get("document", "")
        where = f"label {n} ({doc}, {label.get('claim')})"
        path = label_set.docs / doc
        if not doc or not path.is_file():
            found.append(f"{where}: document {doc!r} not under {label_set.docs}")
            continue
        if label.get("claim") not in claim_ids:
            found.append(f"{where}: claim id not in the catalog")
        if label.get("stance") not in STANCES:
            found.append(f"{where}: stance={label.get('stance')!r}, should be one of {STANCES}")
        passage = label.get("passage")
        if not isinstance(passage, str) or not passage.strip():
            found.append(f"{where}: empty passage")
            continue
        if doc not in cache:
            cache[doc] = pieces(path)
        if path.suffix in OFFSET_KINDS:
            start, end = label.get("start"), label.get("end")
            if not (isinstance(start, int) and isinstance(end, int)):
                found.append(f"{where}: start/end missing for a {path.suffix} document")
                continue
            got = cache[doc][0][start:end]
            if got != passage:
                found.append(f"{where}: text[{start}:{end}]={got[:40]!r}, but passage={passage[:40]!r}")
        elif path.suffix in PASSAGE_KINDS:
            if "start" in label or "end" in label:
                found.append(f"{where}: a {path.suffix} label gives the passage only, not start/end")
            if "<" in passage and ">" in passage and path.suffix == ".html":
                found.append(f"{where}: passage looks like it holds a tag")
            count = sum(piece.count(passage) for piece in cache[doc])
            if count != 1:
                unit = "cell sources" if path.suffix == ".ipynb" else "visible text nodes"
                found.append(f"{where}: passage found {count} times in the {unit}, should be exactly once")
        else:
            found.append(f"{where}: unknown document kind {path.suffix!r}")
    return found


@pytest.fixture(scope="module")
def claim_ids() -> set[str]:
    return set(catalog.load())


@pytest.fixture(scope="module")
def the_set() -> LabelSet:
    return load_set()


def test_every_label_points_at_its_passage(the_set, claim_ids):
    found = problems(the_set, claim_ids)
    assert not found, f"{len(found)} bad labels:\n" + "\n".join(found)


def test_the_set_is_large_enough(the_set):
    documents = sorted(p.name for p in the_set.docs.iterdir() if p.is_file())
    assert len(the_set.labels) >= MIN_LABELS, f"{len(the_set.labels)} labels, should be >= {MIN_LABELS}"
    assert len(documents) >= MIN_DOCUMENTS, f"{len(documents)} documents, should be >= {MIN_DOCUMENTS}"


def test_every_document_is_labelled(the_set):
    documents = sorted(p.name for p in the_set.docs.iterdir() if p.is_file())
    per_doc = {d: sum(1 for label in the_set.labels if label["document"] == d) for d in documents}
    thin = {d: n for d, n in per_doc.items() if n < MIN_LABELS_PER_DOCUMENT}
    assert not thin, f"documents with fewer than {MIN_LABELS_PER_DOCUMENT} labels: {thin}"


def test_no_label_is_given_twice(the_set):
    keys = [(label["document"], label["claim"], label["passage"]) for label in the_set.labels]
    twice = {k for k in keys if keys.count(k) > 1}
    assert not twice, f"labels given twice: {sorted(twice)[:5]}"


# ------------------------------------------------------------------ the checks can fail

def planted(tmp_path: pathlib.Path, label: dict, name: str, text: str) -> LabelSet:
    (tmp_path / "docs").mkdir(exist_ok=True)
    (tmp_path / "docs" / name).write_text(text, encoding="utf-8")
    return LabelSet([label], tmp_path / "docs")


GOOD_MD = "view 共享内存。reshape may copy."
GOOD = {"document": "a.md", "claim": "tensors.view-changes-only-metadata", "stance": "asserts",
        "passage": "view 共享内存。", "start": 0, "end": 10}


def test_a_good_label_passes(tmp_path, claim_ids):
    assert problems(planted(tmp_path, GOOD, "a.md", GOOD_MD), claim_ids) == []


@pytest.mark.parametrize("change, expected", [
    ({"start": 1}, "text[1:10]"),
    ({"claim": "tensors.no-such-claim"}, "not in the catalog"),
    ({"stance": "agrees"}, "stance='agrees'"),
    ({"document": "missing.md"}, "not under"),
    ({"passage": ""}, "empty passage"),
])
def test_a_planted_fault_is_reported(tmp_path, claim_ids, change, expected):
    found = problems(planted(tmp_path, {**GOOD, **change}, "a.md", GOOD_MD), claim_ids)
    assert any(expected in line for line in found), f"{expected!r} not in {found}"


def notebook(*sources: str) -> str:
    cells = [{"cell_type": "markdown", "metadata": {}, "source": [s]} for s in sources]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def test_a_notebook_passage_must_be_unique(tmp_path, claim_ids):
    label = {"document": "n.ipynb", "claim": GOOD["claim"], "stance": "asserts", "passage": "shares memory"}
    assert problems(planted(tmp_path, label, "n.ipynb", notebook("view shares memory")), claim_ids) == []
    twice = problems(planted(tmp_path, label, "n.ipynb", notebook("view shares memory", "it shares memory")), claim_ids)
    assert any("found 2 times" in line for line in twice), twice


def test_html_script_text_does_not_count_as_visible(tmp_path, claim_ids):
    page = "<p>view shares memory</p><script>var s = 'only in the script';</script>"
    label = {"document": "p.html", "claim": GOOD["claim"], "stance": "asserts", "passage": "only in the script"}
    found = problems(planted(tmp_path, label, "p.html", page), claim_ids)
    assert any("found 0 times" in line for line in found), found
    visible = {**label, "passage": "view shares memory"}
    assert problems(planted(tmp_path, visible, "p.html", page), claim_ids) == []


def test_an_html_passage_cannot_span_a_tag(tmp_path, claim_ids):
    page = "<p>view <code>x.view(3, 4)</code> shares memory</p>"
    label = {"document": "p.html", "claim": GOOD["claim"], "stance": "asserts",
             "passage": "view x.view(3, 4) shares memory"}
    found = problems(planted(tmp_path, label, "p.html", page), claim_ids)
    assert any("found 0 times" in line for line in found), found


def test_marks_of_claims_the_labellers_never_saw_are_not_counted(tmp_path):
    """A set labelled against an older catalog lists its claims in DIR/claims.txt; a mark of a
    claim added since is neither right nor wrong there."""
    from torchclaims.find import evaluate, finder as finder_module
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("x\n", encoding="utf-8")
    (tmp_path / "labels.toml").write_text("", encoding="utf-8")

    class Fixed:
        def find(self, text):
            return [finder_module.Mark("tensors.new-claim", 0, 1, "asserts", 0.9, "why", 1, 1.0)]
    assert evaluate.evaluate_set(tmp_path, Fixed()).marks == 1
    (tmp_path / "claims.txt").write_text("tensors.view-changes-only-metadata\n", encoding="utf-8")
    assert evaluate.labelled_claims(tmp_path) == {"tensors.view-changes-only-metadata"}
    assert evaluate.evaluate_set(tmp_path, Fixed()).marks == 0
