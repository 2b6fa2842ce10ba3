"""``python -m torchclaims read``: the document with each claim marked where it is made.

Pages built from the documents contain the material's text: they are written to tmp_path
and never committed. The documents come from ../shared/seeds/ (skip with that reason elsewhere).
"""
import json
import re

import pytest

from torchclaims import anchors, catalog, commands, reader, reports as claim_reports, strings

pytestmark = pytest.mark.e2e  # read over the seed documents and the committed history (seconds each)

SEEDS = anchors.seeds_dir()
DOC3 = SEEDS / "003_cc3cb04f54b5f923.txt"
needs_seeds = pytest.mark.skipif(not DOC3.is_file(), reason=f"needs the documents in {SEEDS} (../shared/seeds/)")
HISTORY = catalog.ROOT / "reports" / "claims"


def _payload(page: str) -> dict:
    blob = re.search(r"<script type='application/json' id='data'>(.*?)</script>", page, re.S)[1]
    return json.loads(blob.replace("<\\/", "</"))


def _marked(page: str) -> set[str]:
    return {cid for group in re.findall(r"data-claims='([^']*)'", page) for cid in group.split()}


@needs_seeds
def test_read_writes_one_offline_page_with_every_anchored_claim_marked(tmp_path, capsys):
    """Material: 003 and its anchors.  True: the page marks every claim anchored in 003, has no
    network reference, and the summary line counts them."""
    assert commands.main(["read", str(DOC3), "-o", str(tmp_path)]) == 0
    page = (tmp_path / "003_cc3cb04f54b5f923.html").read_text(encoding="utf-8")
    own = {a.claim for a in anchors.load().by_document(DOC3.name)}
    assert _marked(page) == own, f"marked {len(_marked(page))} claims, anchored {len(own)}"
    assert not re.search(r"(src|href)=['\"]?https?:", page), "the page must not load anything from the network"
    out = capsys.readouterr().out
    assert out.startswith(f"{len(own)} claims placed, 0 not placed; wrote "), out
    data = _payload(page)
    claim = catalog.load()["tensors.view-needs-contiguous"]
    entry = data["claims"][claim.id]
    assert (entry["truth_en"], entry["truth_zh"]) == (claim.truth, claim.truth_zh)
    assert entry["command"] == f"pytest specs/ --claim {claim.id}"
    assert "§2.1" in entry["source_en"]


@needs_seeds
def test_the_colour_follows_the_chosen_release_of_the_history(tmp_path):
    """Material: a claim that holds on old releases only.  True: with --history and --torch the
    span takes the verdict measured on that release, and the panel carries its history."""
    flips = [(row["id"], row) for row in _history_rows() if row["flips"]]
    doc_claims = {a.claim for a in anchors.load().anchors}
    cid, row = next((cid, row) for cid, row in flips if cid in doc_claims)
    document = next(a.document for a in anchors.load().anchors if a.claim == cid)
    versions = _history_versions()
    flip = next(i for i, c in enumerate(row["cells"]) if c["flip"])
    before = max(i for i in range(flip) if row["cells"][i]["material"] in ("right", "wrong", "partly"))
    for version, material in ((versions[i], row["cells"][i]["material"]) for i in (before, flip)):
        if True:
            out = tmp_path / version
            assert commands.main(["read", str(SEEDS / document), "-o", str(out), "--torch", version]) == 0
            data = _payload((out / (document[:-4] + ".html")).read_text(encoding="utf-8"))
            assert data["torch"] == version and data["claims"][cid]["kind"] == material, (
                f"{cid} on {version}: {data['claims'][cid]['kind']}, measured {material}")
            assert data["claims"][cid]["history_en"] == row["history"] and data["claims"][cid]["history_zh"] == row["history_zh"]


def _history_rows():
    claims = catalog.load()
    reports = [claim_reports.rederive(r, claims) for r in claim_reports.load_reports(sorted(str(p) for p in HISTORY.glob("*.json")))]
    return claim_reports.history_data(reports)["rows"]


def _history_versions():
    return claim_reports.history_data(claim_reports.load_reports(sorted(str(p) for p in HISTORY.glob("*.json"))))["versions"]


@needs_seeds
def test_a_report_gives_the_verdicts_of_its_one_release(tmp_path):
    """Material: one claims report.  True: --report colours each span by that report's measured
    verdict (here 2.14.1's), and the page has no release history."""
    report = HISTORY / "torch-2.14.1.json"
    assert commands.main(["read", str(DOC3), "-o", str(tmp_path), "--report", str(report)]) == 0
    data = _payload((tmp_path / "003_cc3cb04f54b5f923.html").read_text(encoding="utf-8"))
    # the report re-read with today's catalog, as every view reads it (a label changed since the run counts)
    measured = claim_reports.rederive(claim_reports.load_reports([str(report)])[0], catalog.load())["claims"]
    assert data["versions"] == ["2.14.1"]
    for cid, entry in data["claims"].items():
        expected = measured[cid]["material"] if measured[cid]["material"] in ("right", "wrong", "partly") else "other"
        assert entry["kind"] == expected, f"{cid}: {entry['kind']} on the page, {expected} in the report"
    assert any(e["kind"] == "wrong" for e in data["claims"].values())


@needs_seeds
def test_an_edited_copy_marks_what_it_can_and_lists_the_rest_by_claim(tmp_path, capsys):
    """Material: a learner's copy, reformatted and without section 3.2.  True: the claims of
    the untouched sections are marked, each claim of the removed one is listed on its line, and
    none of them is highlighted anywhere."""
    text = DOC3.read_text(encoding="utf-8")
    start, end = anchors.section_range(text, "3.2")
    copy = tmp_path / "my-copy.txt"
    copy.write_text(re.sub("。", "。\n", text[:start] + text[end:]), encoding="utf-8")
    assert commands.main(["read", str(copy), "-o", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    own = anchors.load().by_document(DOC3.name)
    gone = {a.claim for a in own if start <= a.start and a.end <= end}
    listed = set(re.findall(r"^  (\S+): not placed in this copy \(", out, re.M))
    assert listed == gone, out
    page = (tmp_path / "out" / "my-copy.html").read_text(encoding="utf-8")
    assert _marked(page) == {a.claim for a in own} - gone
    assert all(f"{cid}: not placed in this copy" in page for cid in gone)


@needs_seeds
def test_the_text_mode_puts_the_verdicts_in_the_margin(capsys):
    """Material: a reader without a browser.  True: --text prints the document's lines with a
    margin: ✗ on the lines of a wrong statement, with the claim's truth under it."""
    assert commands.main(["read", str(DOC3), "--text", "--width", "90", "--report",
                     str(HISTORY / "torch-2.14.1.json")]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    wrong = json.loads((HISTORY / "torch-2.14.1.json").read_text(encoding="utf-8"))["claims"]
    cid = next(a.claim for a in anchors.load().by_document(DOC3.name) if wrong[a.claim]["material"] == "wrong")
    n = next(i for i, l in enumerate(lines) if f"✗ {cid}: wrong" in l)
    margin = next(l for l in reversed(lines[:n]) if not l.startswith(" "))
    assert margin.startswith("✗"), f"the line where {cid} is made has margin {margin[:8]!r}, expected ✗"
    claim = catalog.load()[cid]
    assert claim.truth.split()[0] in lines[n + 1], lines[n + 1]
    wide = [l for l in lines if strings.cell_width(l) > 90 and "pytest specs/" not in l]
    assert not wide, f"{len(wide)} lines wider than --width 90 (only a command may be), first {wide[:1]}"


def test_a_short_document_of_our_own_is_marked_and_an_unknown_one_is_said(tmp_path):
    """Material: none (a page the test writes).  True: spans placed by make_anchor are marked by
    claim; a text that matches no anchor yields an empty page and says so."""
    text = "张量的 view 要求内存连续。第二句与任何论断无关。"
    claims = catalog.load()
    a = anchors.make_anchor("tensors.view-needs-contiguous", "mine.txt", "1", text, 0, 15)
    placed = anchors.place(text, [a])
    page = reader.render_html(text, "mine", placed, claims, {"torch": None, "versions": [], "claims": {}})
    assert _marked(page) == {"tensors.view-needs-contiguous"}
    assert "<mark class='v-other'" in page
    none = anchors.place("另一段话。", [a])
    assert not none.placed and none.missing[0][1] == "its text is not in this copy"


@pytest.mark.parametrize("argv, fragment", [
    (["read", "no/such/file.txt"], "no such document"),
    (["read", "."], "is a folder"),
    (["read", "BINARY", "-o", "OUT"], "is a binary file"),
    (["read", "EMPTY"], "is empty"),
    (["read", "PDF"], "is not a document this tool reads"),
    (["read", "DOC", "-o", "AFILE"], "is a file"),
    (["read", "DOC", "--history", "no/such/dir"], "no such folder"),
    (["read", "DOC", "--torch", "0.1"], "not among the reports' releases"),
    (["read", "DOC", "--report", "no.json"], "no such report file"),
    (["read", "DOC", "-o", "OUT", "--report", "R", "--history", "H"], "not allowed with"),
    (["read", "DOC", "-o", "TAKEN"], "was not written by this command"),
])
def test_bad_input_is_one_line_and_exit_2(argv, fragment, tmp_path, capsys):
    """Material: none (tooling).  True: every mistake is one line on stderr, exit status 2, and
    a file the command did not write is never overwritten."""
    (tmp_path / "bin.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00" * 4)
    (tmp_path / "empty.md").write_bytes(b"")
    (tmp_path / "paper.pdf").write_bytes(b"%PDF-1.4")
    (tmp_path / "doc.txt").write_text("一段文字。", encoding="utf-8")
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "doc.html").write_text("<html>someone's page</html>", encoding="utf-8")
    names = {"BINARY": tmp_path / "bin.txt", "EMPTY": tmp_path / "empty.md", "PDF": tmp_path / "paper.pdf",
             "DOC": tmp_path / "doc.txt", "AFILE": tmp_path / "afile",
             "OUT": tmp_path / "out", "TAKEN": tmp_path / "taken", "R": tmp_path / "r.json", "H": tmp_path}
    argv = [str(names.get(a, a)) for a in argv]
    assert commands.main(argv) == 2, argv
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1, err
    assert (tmp_path / "taken" / "doc.html").read_text(encoding="utf-8") == "<html>someone's page</html>"


def test_the_default_output_folder_is_ignored_by_git():
    """Material: none (tooling).  True: without -o the page goes under build/, which .gitignore
    excludes, so the default never writes over a committed file."""
    ignored = (catalog.ROOT / ".gitignore").read_text(encoding="utf-8").split()
    assert reader.DEFAULT_OUT.parts[0] == "build" and "/build/" in ignored


def test_the_chinese_page_gives_verdicts_topics_histories_and_unplaced_claims_in_chinese():
    """Issue 32: in Chinese the page said '目录中的结论: partly', English topics, an English history
    and English lines for the claims it could not place."""
    text = "张量的 view 要求内存连续。第二句与任何论断无关。"
    claims = catalog.load()
    a = anchors.make_anchor("tensors.view-needs-contiguous", "mine.txt", "1", text, 0, 15)
    gone = anchors.make_anchor("tensors.view-needs-contiguous", "mine.txt", "2.1", "这一句不在副本里，没有哪段文字与它相同。", 0, 18)
    placed = anchors.place(text, [a, gone])
    measured = {"torch": "2.14.1", "versions": ["2.5.1", "2.6.0"], "claims": {"tensors.view-needs-contiguous": {
        "material": "partly", "cells": ["right", "partly"], "history": "holds up to 2.5.1, partly right since 2.6.0",
        "history_zh": "2.5.1 及以前成立，自 2.6.0 起部分正确", "reason": ""}}}
    page = reader.render_html(text, "mine", placed, claims, measured, "zh")
    data = _payload(page)
    info = data["claims"]["tensors.view-needs-contiguous"]
    assert info["verdict_zh"] == "部分属实" and info["verdict_en"] == "partly"
    assert info["history_zh"] == "2.5.1 及以前成立，自 2.6.0 起部分正确"
    assert "c['verdict_' + lang]" in page and "c['history_' + lang]" in page, "the panel reads the chosen language"
    assert "data-zh='张量'" in page and ">张量</option>" in page, "the topic filter in Chinese"
    assert "tensors.view-needs-contiguous：在此副本中未能定位（§2.1：这份副本中没有这段文字）" in page
    assert data["ui"]["zh"]["catalog"] == "目录中的判定" and data["ui"]["en"]["catalog"] == "catalog verdict"
