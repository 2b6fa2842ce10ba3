"""Whatever a document or a catalog text holds (<script>, quotes, template braces), every HTML page
the project writes shows it as text: the page's own scripts are its only scripts."""
import dataclasses
import html.parser
import json

import pytest

from torchclaims import anchors, catalog, reader, reports as claim_reports
from torchclaims.history import page as history_page

pytestmark = pytest.mark.e2e   # the reader's verdicts read the claim history with git

HOSTILE = "</mark><script>alert('x')</script> \"quoted\" 'single' {{ 7 * 7 }} {% if x %} <img src=x onerror=alert(1)>"


class _Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.text = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def _parsed(page: str) -> _Tags:
    found = _Tags()
    found.feed(page)
    return found


def _inert(page: str, own_scripts: int = 2) -> None:
    found = _parsed(page)
    scripts = [attrs for tag, attrs in found.tags if tag == "script"]
    assert len(scripts) == own_scripts, f"{len(scripts)} <script> elements, the page has {own_scripts} of its own"
    assert not [tag for tag, attrs in found.tags if tag == "img" or any(k.startswith("on") for k in attrs)], (
        "a tag or an event handler from the text became markup")
    assert "{{ 7 * 7 }}" in page and "{% if x %}" in page, "template braces should reach the page as written"


def test_the_readers_page_shows_a_hostile_document_as_text():
    text = f"# A note\n\nview shares memory with its base. {HOSTILE}\n"
    claims = catalog.load()
    measured = claim_reports.verdicts(None, str(catalog.ROOT / "reports" / "claims"), None, claims)
    placed = anchors.place(text, [])
    page = reader.render_html(text, "note <b>title</b>", placed, claims, measured, "en")
    _inert(page)
    assert "<b>title</b>" not in page and "&lt;b&gt;title&lt;/b&gt;" in page, "the title is text"


def test_the_readers_data_block_cannot_close_its_script():
    claims = catalog.load()
    cid = "tensors.view-changes-only-metadata"
    hostile = {**claims, cid: dataclasses.replace(claims[cid], truth=HOSTILE, truth_zh=HOSTILE)}
    text = "view shares memory with its base."
    placed = anchors.place(text, [anchors.make_anchor(cid, "own.txt", "", text, 0, len(text))])
    measured = claim_reports.verdicts(None, str(catalog.ROOT / "reports" / "claims"), None, hostile)
    page = reader.render_html(text, "own", placed, hostile, measured, "en")
    _inert(page)
    blob = page.split("<script type='application/json' id='data'>", 1)[1].split("</script>", 1)[0]
    assert json.loads(blob)["claims"][cid]["truth_en"] == HOSTILE, "the data block holds the text exactly"


def test_the_history_page_shows_hostile_catalog_texts_as_text():
    history = [json.loads(p.read_text(encoding="utf-8"))
               for p in sorted((catalog.ROOT / "reports" / "claims").glob("torch-2.1[34]*.json"))]
    claims = catalog.load()
    cid = "tensors.view-changes-only-metadata"
    hostile = {**claims, cid: dataclasses.replace(claims[cid], says=HOSTILE, says_zh=HOSTILE, truth=HOSTILE)}
    for lang in ("en", "zh"):
        page = history_page.render_html(history, claim_reports.history_data(history), hostile, lang)
        _inert(page)


MARKUP = ("<html", "<div", "<span", "<script", "<style", "function ", "const ", "{margin", "{font", "display:")


def _docstrings(tree) -> set[int]:
    import ast
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body
            and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}


def markup_literals(root=catalog.ROOT / "torchclaims") -> list[str]:
    """Python string literals over one line that hold HTML, CSS or JavaScript (not docstrings)."""
    import ast
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
                    and node.end_lineno > node.lineno and any(m in node.value for m in MARKUP)):
                found.append(f"{path.relative_to(root.parent)}:{node.lineno}")
    return found


def test_no_html_css_or_javascript_in_a_python_string_over_one_line(tmp_path):
    assert markup_literals() == [], "move it to torchclaims/pages/ (a package file)"
    (tmp_path / "planted.py").write_text('STYLE = """\nbody{margin:0}\ndiv{display:none}\n"""\n', encoding="utf-8")
    assert markup_literals(tmp_path) == [f"{tmp_path.name}/planted.py:1"]
