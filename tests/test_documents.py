"""Any document a reader brings (torchclaims/documents.py): decoded, extracted, or refused in one line."""
import json
import pathlib

import pytest

from torchclaims import documents
from torchclaims.errors import UsageError

TEXT = "detach() 返回的張量与原张量共享内存。\nview 要求连续。\n"


@pytest.mark.parametrize("encoding, label", [("gbk", "GB18030/GBK"), ("gb18030", "GB18030/GBK"),
                                             ("utf-16", "UTF-16"), ("big5", "Big5")])
def test_other_encodings_are_decoded_with_a_note(tmp_path, encoding, label):
    """Material: none (tooling).  True: a GBK, GB18030, UTF-16 or Big5 copy reads as its text, with a one-line note."""
    text = TEXT if encoding != "big5" else "detach() 返回的張量與原張量共享記憶體。\nview 要求連續。\n" * 3
    path = tmp_path / "post.md"
    path.write_bytes(text.encode(encoding))
    doc = documents.load(path)
    assert doc.text == text and label in doc.note and "\n" not in doc.note
    assert doc.extracted   # offsets are into the decoded text, which the JSON then carries


def test_utf8_text_is_exactly_what_read_text_gives(tmp_path):
    """Material: none (tooling).  True: offsets of a UTF-8 .md/.txt are into Path.read_text(encoding="utf-8"),
    byte-order mark and universal newlines included."""
    path = tmp_path / "post.txt"
    path.write_bytes(b"\xef\xbb\xbf" + "第一行\r\n第二行\rthird\n".encode("utf-8"))
    doc = documents.load(path)
    assert doc.text == path.read_text(encoding="utf-8") and not doc.extracted and doc.note is None


def test_a_notebook_becomes_its_cells_in_order(tmp_path):
    """Material: none (tooling).  True: markdown cells as they are, code cells fenced, outputs dropped."""
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "id": "a", "metadata": {}, "source": ["# 标题\n", "说明文字。"]},
        {"cell_type": "code", "id": "b", "metadata": {}, "execution_count": 1, "source": "y = x.detach()  # 共享内存",
         "outputs": [{"output_type": "stream", "name": "stdout", "text": "not part of the text"}]}]}
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    doc = documents.load(path)
    assert doc.text == "# 标题\n说明文字。\n\n```python\ny = x.detach()  # 共享内存\n```\n"


def test_a_notebook_without_cell_ids_is_read_without_a_warning(tmp_path, recwarn):
    """Material: none (tooling).  True: nbformat 4.5 cells without ids are read as they are; nbformat's
    three-line advice about normalize() is not shown to the reader."""
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": "detach() 与原张量共享内存。"}]}
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    assert documents.load(path).text == "detach() 与原张量共享内存。\n"
    assert not [w for w in recwarn if "id field" in str(w.message)]


def test_a_page_nested_too_deep_is_refused_in_one_line(tmp_path):
    """Material: none (tooling).  True: a page nested deeper than MAX_DEPTH is refused before the
    parser (whose time grows with the square of the depth) sees it; the walk itself keeps no
    recursion, so a page just under the limit is read."""
    deep = tmp_path / "deep.html"
    deep.write_text("<body>" + "<div>" * (documents.MAX_DEPTH + 5) + "x" + "</div>" * (documents.MAX_DEPTH + 5) + "</body>")
    with pytest.raises(UsageError, match="nest") as info:
        documents.load(deep)
    assert "\n" not in str(info.value)
    ok = tmp_path / "ok.html"
    ok.write_text("<body>" + "<div>" * 5000 + "detach() 与原张量共享内存。" + "</div>" * 5000 + "</body>")
    assert "共享内存" in documents.load(ok).text


def test_a_web_page_is_its_visible_text_and_no_script(tmp_path):
    """Material: none (tooling).  True: scripts and styles are dropped (never run), <pre> is fenced,
    headings and list items are blocks of their own."""
    page = ("<html><head><title>t</title><style>p{}</style><script>alert('x')</script></head><body>"
            "<h2>关于 detach</h2><p>detach() 与原张量<b>共享</b>内存。</p><ul><li>第一</li><li>第二</li></ul>"
            "<pre><code>y = x.view(3, 4)\n# 共享内存</code></pre><script>document.write('no')</script></body></html>")
    path = tmp_path / "page.html"
    path.write_text(page, encoding="utf-8")
    text = documents.load(path).text
    assert "alert" not in text and "document.write" not in text and "p{}" not in text
    assert "## 关于 detach" in text and "detach() 与原张量共享内存。" in text
    assert "- 第一" in text and "```\ny = x.view(3, 4)\n# 共享内存\n```" in text


@pytest.mark.parametrize("name, data, fragment", [
    ("empty.md", b"", "is empty"),
    ("blank.txt", b"  \n\n", "is empty"),
    ("image.md", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8, "binary"),
    ("paper.pdf", b"%PDF-1.4", "is not a document this tool reads"),
    ("noext", b"text", "no extension"),
    ("broken.ipynb", b"{not json", "not a readable notebook"),
])
def test_bad_files_are_one_line(tmp_path, name, data, fragment):
    """Material: none (tooling).  True: every unusable file is a UsageError of one line."""
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(UsageError) as info:
        documents.load(path)
    assert fragment in str(info.value) and "\n" not in str(info.value)


def test_line_and_column_are_one_based():
    """Material: none (tooling).  True: line_col counts lines and columns from 1."""
    doc = documents.Document(pathlib.Path("x.md"), "ab\ncd\n", "markdown")
    assert doc.line_col(0) == (1, 1) and doc.line_col(4) == (2, 2)
