"""The one sentence segmentation (torchclaims/segment.py): what the finder searches, what the
anchors' check holds spans to, and what the reader highlights."""
from hypothesis import given, settings, strategies as st

from torchclaims import segment
from torchclaims.segment import Sentences, comment_of, units


def texts(source):
    return [(u.kind, source[u.start:u.end]) for u in units(source)]


def test_chinese_and_english_sentence_ends():
    """Material: none (tooling).  True: 。！？ and a full stop before a space end a sentence; a
    decimal point, an attribute access and an abbreviation do not."""
    source = "view 共享内存。reshape 可能复制！真的吗？Use x.view(3, 4) e.g. here. It costs 1.5 ms. Done"
    assert [t for _, t in texts(source)] == [
        "view 共享内存。", "reshape 可能复制！", "真的吗？", "Use x.view(3, 4) e.g. here.", "It costs 1.5 ms.", "Done"]


def test_closing_quotes_stay_with_their_sentence():
    """Material: none (tooling).  True: a closing quote or bracket after the end mark belongs to the sentence."""
    source = "书里说“view 不复制。”然后呢。"
    assert [t for _, t in texts(source)] == ["书里说“view 不复制。”", "然后呢。"]


def test_markdown_blocks_headings_items_and_code_lines():
    """Material: none (tooling).  True: a heading, each list item and each code line is a unit of
    its own; a soft-wrapped English line is not cut; fence lines are no unit."""
    source = ("# Title\n\nSome prose that\nwraps here. Next one.\n\n- first item\n- 第二项。后面。\n\n"
              "```python\ny = x.view(3, 4)  # 共享内存\n\nz = y.sum()\n```\n")
    assert texts(source) == [
        ("heading", "# Title"), ("prose", "Some prose that\nwraps here."), ("prose", "Next one."),
        ("prose", "- first item"), ("prose", "- 第二项。"), ("prose", "后面。"),
        ("code", "y = x.view(3, 4)  # 共享内存"), ("code", "z = y.sum()")]


def test_rst_literal_block_lines_are_code():
    """Material: none (tooling).  True: the indented lines after a paragraph ending in ``::`` are code."""
    source = "Example::\n\n    y = x.detach()  # shares memory\n\nAfter it.\n"
    assert texts(source) == [("prose", "Example::"), ("code", "y = x.detach()  # shares memory"), ("prose", "After it.")]


def test_a_chinese_line_break_ends_a_sentence():
    """Material: none (tooling).  True: text that lost its punctuation keeps its line breaks as ends."""
    assert [t for _, t in texts("第一行没有标点\n第二行也没有")] == ["第一行没有标点", "第二行也没有"]


def test_inline_section_numbers_start_a_unit():
    """Material: none (tooling).  True: in run-together text a section number after a sentence end
    starts a new unit, and "2. " is a number, not a sentence end."""
    source = "上一节到此为止。2. 张量的内存布局这里开始。2.1 视图与拷贝"
    assert [t for _, t in texts(source)] == ["上一节到此为止。", "2. 张量的内存布局这里开始。", "2.1 视图与拷贝"]


def test_a_long_unpunctuated_run_is_cut_at_its_soft_marks():
    """Material: none (tooling).  True: a unit over LONG characters is cut after a comma or 、."""
    source = "甲" * 100 + "，" + "乙" * 100 + "。"
    assert [len(t) for _, t in texts(source)] == [101, 101]


def test_comment_of_a_code_line():
    """Material: none (tooling).  True: the comment after ``#`` or ``//``, not a ``#`` inside a string."""
    assert comment_of("y = x.view(3, 4)  # 共享内存") == "共享内存"
    assert comment_of('print("#not a comment")') is None
    assert comment_of("z = y.sum()") is None


def test_inside_refuses_a_span_that_cuts_a_sentence():
    """Material: none (tooling).  True: a span must start and end where units do (white space aside)."""
    source = "第一句。第二句很长。第三句。"
    s = Sentences(source)
    assert s.inside(4, 10) == []
    assert s.inside(0, 14) == []
    assert "starts inside" in s.inside(3, 10)[0]     # 3 is the 。 of the first sentence
    assert s.inside(5, 10) and "starts inside" in s.inside(5, 10)[0]
    assert s.inside(4, 8) and "ends inside" in s.inside(4, 8)[0]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(list("ab 。.!?\n#`-|:，张量x1") + ["```", "::", "\n\n", "    "]), max_size=60).map("".join))
def test_units_are_ordered_trimmed_and_disjoint(source):
    """Material: none (tooling).  True: for any text, units lie inside it, in order, without
    overlap and without white space at their edges."""
    last = 0
    for u in units(source):
        assert last <= u.start < u.end <= len(source)
        piece = source[u.start:u.end]
        assert piece == piece.strip()
        last = u.end


def test_no_unit_is_longer_than_the_hard_limit():
    """Material: none (tooling).  True: a text without sentence ends (a megabyte on one line) is cut
    at spaces into units of at most HARD characters, so a document is read in linear time."""

    text = "view shares memory with its base and reshape may copy " * 2000
    got = units(text)
    assert max(u.end - u.start for u in got) <= segment.HARD and len(got) > 40
    assert all(text[u.start:u.end].strip() for u in got)


def test_code_that_lost_its_line_breaks_is_cut_into_statements_and_prose():
    """Issue #40: a highlight can be one line of code. Statements glued to a file name or to other
    code, an error message running into Chinese, and a long call running into the next sentence
    are cut; "from x import y" and "python -c import ..." stay whole."""
    from torchclaims import segment
    text = ("安全启动脚本train_ddp.pyimport torch.distributed as dist from torch.nn.parallel import DistributedDataParallel "
            "as DDP def setup(rank, world_size): dist.init_process_group(gloo, rankrank, world_sizeworld_size) "
            "if __name__ __main__: mp.spawn(train_fn, args(world_size,), nprocsworld_size, joinTrue)关键纪律包装必须在之后"
            "如果调用会报错v torch.tensor([1.0, 2.0], requires_gradTrue) w v * 2 # w.backward() ← RuntimeError: grad can "
            "be implicitly created only for scalar outputs正确做法是提供参数")
    pieces = [text[u.start:u.end] for u in segment.units(text)]
    for piece in ("import torch.distributed as dist", "from torch.nn.parallel import DistributedDataParallel as DDP",
                  "关键纪律包装必须在之后如果调用会报错", "正确做法是提供参数"):
        assert piece in pieces, pieces
    assert any(p.startswith("def setup(") for p in pieces) and any(p.startswith("if __name__") for p in pieces), pieces
    assert any(p.startswith("v torch.tensor(") and p.endswith("scalar outputs") for p in pieces), pieces
    whole = "我们这样检查环境是否正常python -c import torch; print(torch.__version__); print(torch.cuda.is_available())" * 3
    assert not any(u.end - u.start < 20 for u in segment.units(whole)), [whole[u.start:u.end] for u in segment.units(whole)]


def test_an_rst_code_directive_and_a_doctest_line_are_code():
    """Material: none (tooling).  True: the body of ``.. code-block:: python`` is code, as after
    ``::``; a ``>>>`` line is code wherever it stands; the prose around them stays prose."""
    text = "Intro text.\n\n.. code-block:: python\n\n    >>> x.shape\n    torch.Size([2, 3])\n\nBack to prose.\n>>> y = 1\n"
    got = [(u.kind, text[u.start:u.end]) for u in units(text)]
    assert got == [("prose", "Intro text."), ("code", ">>> x.shape"), ("code", "torch.Size([2, 3])"),
                   ("prose", "Back to prose."), ("code", ">>> y = 1")]


def test_floor_division_and_an_address_are_no_comment():
    """Material: none (tooling).  True: ``//`` starts a comment in C-like code, not where it divides
    (inside brackets, in a line of Python) or follows a colon (``https://``)."""
    assert comment_of("return [base_lr * self.gamma ** (self.last_epoch // self.step_size)") is None
    assert comment_of("x = a // b") is None
    assert comment_of("see https://pytorch.org/docs") is None
    assert comment_of("int n = 3; // 注释") == "注释"
    assert comment_of("// a whole comment line") == "a whole comment line"


def test_triple_backticks_closed_on_the_same_line_are_inline_code_not_a_fence():
    """Material: none (tooling).  True (CommonMark): a backtick fence's info string holds no
    backtick, so a line that opens with ```name``` and goes on is prose; the real fence after it
    still opens and closes a code block."""
    text = "```torch.utils.data.DataLoader``` 是一个工具。\n\n```python\nx = 1\n```\nafter.\n"
    assert [(u.kind, text[u.start:u.end]) for u in units(text)] == [
        ("prose", "```torch.utils.data.DataLoader``` 是一个工具。"), ("code", "x = 1"), ("prose", "after.")]


def test_a_fence_inside_a_list_item_is_code():
    """Material: none (tooling).  True: a fence indented under a list item opens a code block."""
    text = "- item\n\n    ```python\n    a = x.numpy()\n    ```\n- next item\n"
    assert [(u.kind, text[u.start:u.end]) for u in units(text)] == [
        ("prose", "- item"), ("code", "a = x.numpy()"), ("prose", "- next item")]
