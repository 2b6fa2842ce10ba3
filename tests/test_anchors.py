"""Anchors: every claim is placed where its documents make it, check verifies the places, and
an edited copy still places the anchors of what was not edited (torchclaims/anchors.py).

The documents are read from ../shared/seeds/ (CI has that folder); tests that need them skip
with that reason elsewhere. Edited copies are made here, in tmp_path, never committed.
"""
import os
import pathlib
import random
import re
import shutil

import opencc
import pytest

from torchclaims import anchoring, anchors, catalog, commands, segment

SEEDS = anchors.seeds_dir()
needs_seeds = pytest.mark.skipif(not all((SEEDS / f).is_file() for f in catalog.SEED_FILES),
                                 reason=f"needs the four documents in {SEEDS} (../shared/seeds/)")
DOC3 = "003_cc3cb04f54b5f923.txt"
DOC4 = "004_9d58428a819b84da.txt"


def test_ci_has_the_documents():
    """Material: the four seed documents.  True: CI provides ../shared/seeds/, so there their
    absence fails instead of skipping every anchor check."""
    missing = [f for f in catalog.SEED_FILES if not (SEEDS / f).is_file()]
    if missing and os.environ.get("CI", "").lower() != "true":
        pytest.skip(f"not in CI and {SEEDS} lacks {', '.join(missing)}")
    assert not missing, f"CI=true but {SEEDS} lacks {', '.join(missing)}: the anchor checks would all skip"


def _text(document):
    return (SEEDS / document).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def claims():
    return catalog.load()


@pytest.fixture(scope="module")
def found():
    return anchors.load()


def test_every_cited_document_has_an_anchor_or_a_reason_for_each_claim(claims, found):
    """Material: each claim cites document and section.  True: each (claim, document) pair has an
    anchor or a stated reason, and claims without any anchor stay under 5% of the catalog."""
    structural = anchors.problems(claims, seeds=pathlib.Path("/nonexistent"))
    assert structural == [], "anchor problems (python -m torchclaims anchors status):\n" + "\n".join(structural)
    # claims of the wider world cite tutorials, not the four documents: nothing to anchor
    seeded = {cid: c for cid, c in claims.items() if c.seed_sources}
    count = anchors.counts(seeded)
    assert count["unanchored"] <= 0.05 * len(seeded), (
        f"{count['unanchored']} of {len(seeded)} claims have no anchor at all, but at most 5% may lack one")
    assert not found.problems, found.problems


@needs_seeds
def test_every_anchor_matches_its_document_as_distributed(claims):
    """Material: the four documents in ../shared/seeds/.  True: the text at every anchor's offsets
    still has the anchor's fingerprint (what check verifies)."""
    problems = anchors.problems(claims)
    assert problems == [], "\n".join(problems)


@pytest.mark.e2e  # runs check over a planted catalog (seconds)
@needs_seeds
def test_a_planted_wrong_offset_fails_check(tmp_path, monkeypatch, capsys):
    """Material: an anchor records offsets.  True: an anchor moved by a few characters no longer
    matches, and check reports it by claim id and exits 1."""
    folder = tmp_path / "claims"
    shutil.copytree(catalog.CLAIMS_DIR, folder)
    path = folder / "anchors" / (DOC3[:-4] + ".toml")
    source = path.read_text(encoding="utf-8")
    first = re.search(r'claim = "([^"]+)"\nsection = "[^"]*"\nstart = (\d+)\nend = (\d+)', source)
    cid, start, end = first[1], int(first[2]), int(first[3])
    path.write_text(source.replace(f"start = {start}\nend = {end}", f"start = {start + 3}\nend = {end + 3}", 1),
                    encoding="utf-8")
    monkeypatch.setenv("TORCHCLAIMS_CLAIMS_DIR", str(folder))
    code = commands.main(["check", "--static"])
    out = capsys.readouterr().out
    assert code == 1, f"check exited {code} with an anchor of {cid} moved by 3 characters, but should fail:\n{out}"
    assert f"{cid}: anchor at {start + 3}-{end + 3} of {DOC3} no longer matches" in out, out


def test_check_reports_a_claim_with_neither_anchor_nor_reason(tmp_path, claims):
    """Material: a new claim.  True: until it has an anchor (or a reason) check names it, with the
    command that proposes one."""
    folder = tmp_path / "anchors"
    shutil.copytree(anchors.anchors_dir(), folder)
    path = folder / (DOC3[:-4] + ".toml")
    source = path.read_text(encoding="utf-8")
    cid = re.search(r'claim = "([^"]+)"', source)[1]
    blocks = source.split("\n\n")
    kept = [b for b in blocks if f'claim = "{cid}"' not in b]
    path.write_text("\n\n".join(kept), encoding="utf-8")
    problems = anchors.problems(claims, directory=folder, seeds=pathlib.Path("/nonexistent"))
    assert any(p.startswith(f"{cid}: no anchor in {DOC3}") and "anchors propose" in p for p in problems), problems


def _planted(tmp_path, document, replace):
    """A copy of claims/anchors/ where ``replace(anchor, text)`` gives a new anchor for the first
    anchor of ``document`` it does not answer None for; returns (folder, old, new)."""
    folder = tmp_path / "anchors"
    shutil.copytree(anchors.anchors_dir(), folder)
    found = anchors.load(folder)
    text = _text(document)
    own = found.by_document(document)
    old, new = next((a, n) for a in own if (n := replace(a, text)) is not None)
    rest = [u for u in found.unanchored if u.document == document]
    anchors.write_file(document, [a for a in own if a != old] + [new], rest, directory=folder)
    return folder, old, new


@needs_seeds
def test_check_refuses_a_span_that_starts_or_ends_inside_a_sentence(tmp_path, claims):
    """Material: a claim is made by whole sentences.  True: an anchor whose fingerprint matches
    but whose span starts (or ends) a few characters inside a sentence of the document, by
    segment.Sentences, is reported by check; the anchors as committed are not."""
    def shrink(a, text, side):
        units = segment.Sentences(text)
        first, last = units.at(a.start), units.at(a.end - 1)
        if side == "start" and first.end - first.start > 12:
            return anchors.make_anchor(a.claim, a.document, a.section, text, a.start + 5, a.end)
        if side == "end" and last.end - last.start > 12:
            return anchors.make_anchor(a.claim, a.document, a.section, text, a.start, a.end - 5)
        return None
    assert [p for p in anchors.problems(claims) if "inside a sentence" in p] == []
    for side in ("start", "end"):
        folder, old, new = _planted(tmp_path / side, DOC4, lambda a, text, side=side: shrink(a, text, side))
        problems = anchors.problems(claims, directory=folder)
        where = f"{new.claim}: anchor at {new.start}-{new.end} of {DOC4} {side}s inside a sentence"
        assert any(p.startswith(where) for p in problems), (where, problems)
        assert not any(p.startswith(f"{new.claim}:") and "no longer matches" in p for p in problems)


@needs_seeds
def test_check_refuses_an_anchor_outside_the_section_it_names(tmp_path, claims):
    """Material: a source names a section (004 §4.3).  True: an anchor recorded for §4.3 whose
    whole sentence lies in §2.1 is reported as outside its section."""
    def elsewhere(a, text):
        if a.section != "4.3":
            return None
        start, _ = anchors.section_range(text, "2.1")
        unit = next(u for u in segment.Sentences(text).units if u.start > start)
        return anchors.make_anchor(a.claim, a.document, a.section, text, unit.start, unit.end)
    folder, old, new = _planted(tmp_path, DOC4, elsewhere)
    problems = anchors.problems(claims, directory=folder)
    assert any(p.startswith(f"{new.claim}: anchor at {new.start}-{new.end} of {DOC4} is outside §4.3")
               for p in problems), problems


@needs_seeds
def test_anchors_set_refuses_a_span_that_cuts_a_sentence(tmp_path, monkeypatch, capsys):
    """Material: none (tooling).  True: `anchors set` with a start inside a sentence answers with
    one line naming the problem, exit status 2, and writes nothing."""
    folder = tmp_path / "claims"
    shutil.copytree(catalog.CLAIMS_DIR, folder)
    monkeypatch.setenv("TORCHCLAIMS_CLAIMS_DIR", str(folder))
    a = next(a for a in anchors.load(folder / "anchors").by_document(DOC4)
             if (u := segment.Sentences(_text(DOC4)).at(a.start)) and u.end - u.start > 12)
    before = (folder / "anchors" / (DOC4[:-4] + ".toml")).read_text(encoding="utf-8")
    argv = ["anchors", "set", a.claim, "--doc", DOC4, "--section", a.section,
            "--start", str(a.start + 5), "--end", str(a.end)]
    assert commands.main(argv) == 2
    err = capsys.readouterr().err
    assert "starts inside a sentence" in err and err.count("\n") == 1, err
    assert (folder / "anchors" / (DOC4[:-4] + ".toml")).read_text(encoding="utf-8") == before


def test_a_reformatted_span_keeps_its_fingerprint():
    """Material: a reader's copy is laid out, punctuated and written in its own way.  True: the
    digest is of the text without whitespace, punctuation or symbols (half or full width), case
    folded and read as simplified characters, so none of these changes it."""
    plain = "view() 需要连续内存 否则报错"
    for copy in ("ｖｉｅｗ()\n  需要 连续\n内存，否则报错。", "View：“需要连续内存”——否则报错！",
                 "view() 需要連續內存，否則報錯。"):
        a = anchors.make_anchor("x.y", "d.txt", "1", plain, 0, len(plain))
        b = anchors.make_anchor("x.y", "d.txt", "1", copy, 0, len(copy))
        assert (a.sha, a.length) == (b.sha, b.length), f"{copy!r} changed the fingerprint: {a} != {b}"
    c = anchors.make_anchor("x.y", "d.txt", "1", plain.replace("内", "显"), 0, len(plain))
    assert c.sha != anchors.make_anchor("x.y", "d.txt", "1", plain, 0, len(plain)).sha, \
        "one character changed, but the fingerprint did not"


@needs_seeds
def test_the_sections_of_a_document_are_found_in_order():
    """Material: sources name sections (§3.1).  True: every heading of 003 is found once, in
    order, and the book's own section references ("2.5 节") are not taken for headings."""
    heads = anchors.sections(_text(DOC3))
    numbers = [n for n, _, _ in heads]
    assert numbers == ["1", "2", "2.1", "2.2", "2.3", "3", "3.1", "3.2", "3.3", "3.4", "4", "4.1", "4.2", "4.3",
                       "4.4", "5", "5.1", "5.2", "5.3"], numbers
    assert [s for _, s, _ in heads] == sorted(s for _, s, _ in heads)


@needs_seeds
def test_the_helper_proposes_whole_sentences_only(claims, found):
    """Material: the author reads what the helper proposes.  True: every span the helper offers
    for an anchored claim is a whole unit of the one segmentation, so a proposal taken as it is
    would pass check (the anchors themselves were read one by one, not taken from it)."""
    cut = []
    for document in sorted({a.document for a in found.anchors}):
        text = _text(document)
        units, heads = segment.Sentences(text), anchors.sections(text)
        for cid in sorted({a.claim for a in found.by_document(document)}):
            for _, s, e, _ in anchoring.candidates(claims[cid], document, text, heads=heads)[:3]:
                cut += [f"{cid} in {document}: {p}" for p in units.inside(s, e)]
    assert cut == [], "\n".join(cut[:10])


@needs_seeds
def test_a_reformatted_copy_places_every_anchor_at_the_same_words(found):
    """Material: another edition, reformatted.  True: with spaces and line breaks added every
    anchor is placed, on text whose normalised form is the anchor's own."""
    text = _text(DOC3)
    edited = re.sub(r"([。！？])", r"\1\n\n  ", text).replace("，", "， ")
    own = found.by_document(DOC3)
    placed = anchors.place(edited, own)
    assert not placed.missing, placed.lines()
    for p in placed.placed:
        for s, e in p.spans:
            norm = anchors.normalise(edited[s:e])[0]
            assert anchors.digest(norm) == p.anchor.sha, f"{p.anchor.claim} placed on other words at {s}-{e}"


@pytest.mark.parametrize("document, section", [(DOC3, "3.2"), (DOC4, "4.3"), (DOC4, "2.3")])
@needs_seeds
def test_a_copy_without_a_section_lists_exactly_its_claims_as_not_in_this_copy(found, document, section):
    """Material: a copy with a section removed.  True: every anchor of the removed section, and
    only those, is listed as not in this copy with its section; every other anchor is placed,
    at its old place shifted by the gap."""
    text = _text(document)
    start, end = anchors.section_range(text, section)
    edited = text[:start] + text[end:]
    own = found.by_document(document)
    inside = {(a.claim, a.section) for a in own if start <= a.start and a.end <= end}
    assert inside and all(s == section for _, s in inside), f"§{section} of {document} has anchors: {inside}"
    placed = anchors.place(edited, own)
    assert {(a.claim, a.section) for a, _ in placed.missing} == inside, placed.lines()
    assert all(why == anchors.NOT_IN_COPY for _, why in placed.missing), placed.lines()
    assert all(f"(§{section}: its text is not in this copy)" in line for line in placed.lines()), placed.lines()
    for p in placed.placed:
        (s, e), = p.spans
        shift = 0 if p.anchor.start < start else end - start
        assert _core(edited, s, e) == tuple(x - shift for x in _core(text, p.anchor.start, p.anchor.end)), (
            f"{p.anchor.claim} placed at {s}-{e}, not at its place {p.anchor.start}-{p.anchor.end} less the gap")


def _core(text, start, end):
    """The span without the characters a fingerprint ignores at either end."""
    where = anchors.normalise(text[start:end])[1]
    return start + where[0], start + where[-1] + 1


def _restore_punctuation(text, seed=0):
    """The text with punctuation put back the way a reader's copy has it: a 。, comma, colon,
    semicolon or closing quote at every sentence end, commas and quotes inside sentences."""
    rng = random.Random(seed)
    cuts = {u.end: rng.choice(["。", "，", "：", "”。", "；", "。”"]) for u in segment.Sentences(text).units}
    out = []
    for i, ch in enumerate(text):
        out.append(ch)
        if i + 1 in cuts:
            out.append(cuts[i + 1])
        elif "\u4e00" <= ch <= "\u9fff" and "\u4e00" <= text[i + 1:i + 2] <= "\u9fff" and rng.random() < 0.04:
            out.append(rng.choice(["，", "、", "“", "”", "："]))
    return "".join(out)


@needs_seeds
def test_a_punctuation_restored_copy_places_at_least_95_percent_of_the_claims(found):
    """Material: a reader's own copy of the book, its commas, full stops, colons and quotes back.
    True: at least 95% of the claims anchored in each document are placed in it (punctuation is
    not part of a fingerprint), each on the words of its anchor."""
    for document in catalog.SEED_FILES:
        own = found.by_document(document)
        copy = _restore_punctuation(_text(document))
        assert copy.count("，") > 20, "the copy has its commas back"
        placed = anchors.place(copy, own)
        claims = {a.claim for a in own}
        done = {p.anchor.claim for p in placed.placed}
        assert len(done) >= 0.95 * len(claims), (
            f"{document}: {len(done)} of {len(claims)} claims placed in the punctuated copy", placed.lines()[:5])
        for p in placed.placed:
            for s, e in p.spans:
                assert anchors.digest(anchors.normalise(copy[s:e])[0]) == p.anchor.sha


@needs_seeds
def test_a_traditional_character_copy_places_every_anchor(found):
    """Material: the same text in traditional characters.  True: every anchor of 003 and 004 is
    placed in a copy converted with OpenCC (simplified to traditional)."""
    convert = opencc.OpenCC("s2t").convert
    for document in (DOC3, DOC4):
        text = _text(document)
        copy = convert(text)
        assert sum(a != b for a, b in zip(text, copy)) > 100, "the copy really is in traditional characters"
        placed = anchors.place(copy, found.by_document(document))
        assert not placed.missing, placed.lines()


@needs_seeds
def test_a_copy_with_its_sections_reordered_places_every_anchor(found):
    """Material: an edition that orders the chapters differently.  True: with the top-level
    sections of 003 and 004 in reverse order every anchor is placed, each once."""
    for document in (DOC3, DOC4):
        text = _text(document)
        tops = [start for number, start, copy in anchors.sections(text) if "." not in number and copy == 1]
        edges = [0, *tops, len(text)]
        blocks = [text[a:b] for a, b in zip(edges, edges[1:])]
        copy = blocks[0] + "".join(reversed(blocks[1:]))
        assert copy != text and sorted(copy) == sorted(text)
        placed = anchors.place(copy, found.by_document(document))
        assert not placed.missing, placed.lines()
        assert all(len(p.spans) == 1 for p in placed.placed)


@needs_seeds
def test_an_edited_span_is_not_placed_anywhere(found):
    """Material: a sentence edited in the reader's copy.  True: its claim is reported as edited,
    never shown at a near match."""
    text = _text(DOC3)
    target = found.by_document(DOC3)[5]
    middle = (target.start + target.end) // 2
    edited = text[:middle] + "X" + text[middle + 1:]
    others = [a for a in found.by_document(DOC3) if (a.start, a.end) == (target.start, target.end)]
    placed = anchors.place(edited, others)
    assert not placed.placed, f"{[p.anchor.claim for p in placed.placed]} placed on an edited span"
    assert all(why.startswith("edited") for _, why in placed.missing), placed.lines()


@needs_seeds
def test_one_half_of_a_duplicated_document_places_all_its_anchors(found):
    """Material: 000 and 002 repeat their text.  True: a copy holding only the second half, or the
    first halves of both documents joined, places every anchor of the documents it holds."""
    for document in ("000_9a03721c87560f23.txt", "002_015987172f286748.txt"):
        text = _text(document)
        second = [s for n, s, copy in anchors.sections(text) if copy == 2][0]
        placed = anchors.place(text[second:], found.by_document(document))
        assert not placed.missing, (document, placed.lines())
    a, b = _text("000_9a03721c87560f23.txt"), _text("002_015987172f286748.txt")
    halves = a[:len(a) // 2] + "\n" + b[:len(b) // 2]
    both = [x for x in found.anchors if x.document in ("000_9a03721c87560f23.txt", "002_015987172f286748.txt")]
    placed = anchors.place(halves, both)
    assert not placed.missing, placed.lines()
    assert len(placed.placed) == len(both)


@pytest.mark.parametrize("argv, fragment", [
    (["anchors", "show", "tensors.no-such-claim"], "no anchor"),
    (["anchors", "propose"], "needs a claim id or --all"),
    (["anchors", "propose", "tensors.no-such-claim"], "unknown claim"),
    (["anchors", "skip", "tensors.view-needs-contiguous", "--doc", "nope.txt", "--reason", "x"], "does not cite"),
])
def test_the_anchors_command_answers_a_mistake_with_one_line(argv, fragment, capsys):
    """Material: none (tooling).  True: each mistake is one line on stderr and exit status 2."""
    assert commands.main(argv) == 2, argv
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1, err


# ---------------------------------------------------------------- units of a text that lost its line breaks

def _unit_texts(text):
    return [u.text(text) for u in segment.Sentences(text).units]


def test_a_flattened_code_run_is_cut_after_each_chinese_comment():
    """Material: the documents lost their line breaks, so code lines run together.  True: past
    segment.LONG characters a run is cut where a comment's Chinese text meets the next statement,
    each comment staying with the code before it; a comment that goes on in English is not cut."""
    run = ("import torch a torch.zeros(4, 4) # 先准备一个全零矩阵用来演示 b a.sum(dim0) # 按列求和得到四个数 "
           "c b.mean() # 再求平均值 d torch.ones(3) print(d.shape) # 形状是 (3,) 也就是一维向量 "
           "e d * 2 # 每个元素翻倍之后 mean 不变吗 f e.mean() 说明完毕。")
    assert len(run) > segment.LONG
    units = _unit_texts(run)
    assert units[:3] == ["import torch a torch.zeros(4, 4) # 先准备一个全零矩阵用来演示",
                         "b a.sum(dim0) # 按列求和得到四个数", "c b.mean() # 再求平均值"], units
    assert "e d * 2 # 每个元素翻倍之后 mean 不变吗" in units, units


def test_a_heading_run_into_the_text_before_it_starts_a_unit():
    """Material: "...的结尾4.4 训练循环..." (a heading glued to the sentence before).  True: the
    unit starts at the section number; a version number after a space is not a heading."""
    text = "前一节讲到这里就结束了4.4 训练循环这一节讲怎样写循环。我们用 PyTorch 1.12 做实验。"
    units = _unit_texts(text)
    assert units[:2] == ["前一节讲到这里就结束了", "4.4 训练循环这一节讲怎样写循环。"], units
    assert units[2] == "我们用 PyTorch 1.12 做实验。", units


def test_enumerations_and_table_rows_of_a_long_run_are_units():
    """Material: a table and a list that lost their punctuation.  True: a long run is cut before
    "第二"/"第三", before "二级是", and before a row that opens with a version number or a call."""
    listing = ("好处有三个第一每一步都能单独验证不会互相干扰而且出了问题很容易定位到具体哪一行代码上去"
               "第二数据量小的时候反馈很快几秒钟就能看到结果所以调参的节奏可以很密集不用一直干等着结果出来"
               "第三换机器也能复现结果只要把随机种子固定下来并且记录下所用的库版本就可以了而不必每次重新摸索一遍"
               "哪些设置会影响最终的数值以及它们之间的先后关系到底是什么样子的。")
    assert len(listing) > segment.LONG
    assert [u[:2] for u in _unit_texts(listing)] == ["好处", "第二", "第三"], _unit_texts(listing)
    table = ("版本对照表如下版本说明特性2.1.0默认开启编译缓存2.0.1首次提供编译入口1.13.1只能用脚本导出"
             "遇到旧版本时有两级办法一级是换成旧接口写法foo()二级是关掉新特性退回到最朴素最稳妥的那种实现方式"
             "测速结果基线12.5torch.compile(modea)20.1torch.compile(modeb)22.3结束。")
    assert len(table) > segment.LONG
    units = _unit_texts(table)
    assert [u for u in units if u[0].isdigit()] == ["2.1.0默认开启编译缓存", "2.0.1首次提供编译入口",
                                                   "1.13.1只能用脚本导出遇到旧版本时有两级办法"], units
    assert any(u.startswith("二级是") for u in units), units
    assert "torch.compile(modea)20.1" in units and "torch.compile(modeb)22.3结束。" in units, units


@needs_seeds
def test_a_document_that_does_not_make_a_claim_is_recorded_with_its_reason(tmp_path, monkeypatch, capsys):
    """Material: a source that cites a section which does not make the claim.  True: `anchors
    skip --section` drops that anchor and records the reason; once the claim's source stops citing
    the section check is clean, and while it still cites it nothing is reported either (the
    reason stands for it); `anchors drop` of an anchor that is not there is one line, status 2."""
    folder = tmp_path / "claims"
    shutil.copytree(catalog.CLAIMS_DIR, folder)
    monkeypatch.setenv("TORCHCLAIMS_CLAIMS_DIR", str(folder))
    a = next(a for a in anchors.load(folder / "anchors").by_document(DOC4) if a.section == "6")
    argv = ["anchors", "skip", a.claim, "--doc", DOC4, "--section", "6", "--reason", "not made there"]
    assert commands.main(argv) == 0
    found = anchors.load(folder / "anchors")
    assert (a.claim, "6") not in {(x.claim, x.section) for x in found.by_document(DOC4)}
    assert any(u.claim == a.claim and u.section == "6" and u.reason == "not made there" for u in found.unanchored)
    claims = catalog.load()
    assert [p for p in anchors.problems(claims, directory=folder / "anchors") if a.claim in p] == []
    toml = next(p for p in folder.glob("*.toml") if f'id = "{a.claim}"' in p.read_text(encoding="utf-8"))
    text = toml.read_text(encoding="utf-8")
    line = re.search(rf'^id = "{re.escape(a.claim)}"\nsource = (.*)$', text, re.M)[1]
    kept = [s for s in re.findall(r'"([^"]+)"', line) if s != f"{DOC4} §6"]
    toml.write_text(text.replace(f'id = "{a.claim}"\nsource = {line}',
                                 f'id = "{a.claim}"\nsource = [' + ", ".join(f'"{s}"' for s in kept) + "]"),
                    encoding="utf-8")
    claims = catalog.load()
    assert f"{DOC4} §6" not in claims[a.claim].source
    assert [p for p in anchors.problems(claims, directory=folder / "anchors") if a.claim in p] == []
    capsys.readouterr()
    assert commands.main(["anchors", "drop", a.claim, "--doc", DOC4, "--section", "6"]) == 2
    err = capsys.readouterr().err
    assert "no anchor" in err and err.count("\n") == 1, err


def test_items_star_rated_rows_code_starts_and_glued_headings_are_units():
    """Material: check-marked advice, a star-rated table, code run into its introduction and a
    heading glued to the code before it.  True: each ✅/❌ item, each rated row, the code after its
    introduction and the heading start a unit; "2.5 节" (a reference) and a ✅ inside a comment or
    in a table of ✅/❌ cells do not."""
    items = "修复办法✅ 先把张量搬到同一设备上再运算❌ 不要指望框架自动搬运数据 # ✅ 注释里的勾不算"
    assert _unit_texts(items) == ["修复办法", "✅ 先把张量搬到同一设备上再运算", "❌ 不要指望框架自动搬运数据 # ✅ 注释里的勾不算"]
    cells = "类型是否更新是否保存参数✅✅缓冲区❌✅"
    assert _unit_texts(cells) == [cells]
    rows = ("速查表问题原因办法频率显存不足批次太大把批次减半然后再观察一下显存曲线是否随着训练步数一起上涨★★★★★加载卡死子进程里碰了显卡"
            "把所有显卡调用都挪回主进程里面去做而且不要在初始化函数里面偷偷调用任何与显卡有关的接口★★★☆☆"
            "精度震荡忘了切换模式在验证前调用切换函数再验证而验证结束以后还要记得切回训练模式继续训练★★★★☆")
    assert len(rows) > segment.LONG
    assert [u[:4] for u in _unit_texts(rows)] == ["速查表问", "加载卡死", "精度震荡"], _unit_texts(rows)
    code = ("下面给出一个完整可以运行的小例子它演示了怎样定义一个最简单的网络结构并且把它搬到显卡上运行起来"
            "以便后面的章节继续使用它来讲解训练循环验证流程保存与加载以及导出部署等等一系列后续的话题"
            "完整代码import torch class Net(torch.nn.Module): pass net Net() print(net)")
    assert len(code) > segment.LONG
    # the code after its lead-in, one statement a unit (issue #40: a highlight can be one line of code)
    assert _unit_texts(code)[-2:] == ["import torch", "class Net(torch.nn.Module): pass net Net() print(net)"], _unit_texts(code)
    glued = "最后调用 return model6. 进阶延伸这一节讲部署。参见 2.5 节的说明。前面的代码self.relu(x)4. 实操过程开始。"
    units = _unit_texts(glued)
    assert "6. 进阶延伸这一节讲部署。" in units and "4. 实操过程开始。" in units, units
    assert "参见 2.5 节的说明。" in units, units
