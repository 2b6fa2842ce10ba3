"""The claim finder (torchclaims/find/) on small texts of the tests' own, with cues of the
tests' own and a decision of the tests' own (a mark when every cue group matched, the cues'
stance), so each rule of matching and stance is seen on its own, apart from the fitted weights."""
import dataclasses
import re

import pytest

from torchclaims import catalog, files, find
from torchclaims.find import cues, decide, features

Cues = catalog.Cues


def rules_only() -> decide.Model:
    """A decision that follows the cues alone: every group matched makes the claim (0.95), the
    cues' stance decides it."""
    makes = [6.0 if n == "cue_full" else 0.0 for n in features.MAKES]
    denies = [3.0 if n.startswith("rule_") or n == "contrary" else 0.0 for n in features.DENIES]
    return decide.Model(decide.Logistic(features.MAKES, tuple(makes), -3.0),
                        decide.Logistic(features.DENIES, tuple(denies), 0.0), {})


@pytest.fixture(scope="module")
def the_finder():
    real = catalog.load()
    cues = {
        "autograd.detach-shares-storage": Cues(("detach",), (("共享", "share*", "same memory", "同一块内存", "!深拷贝",
                                                                "!copy*", "!copies"),)),
        "data.num-workers-not-more-better": Cues(("num_workers",), (("越大越好", "the more the better"),), negated=True),
        "tensors.view-needs-contiguous": Cues(("view",), (("contiguous", "连续"),), unless=("reshape",)),
    }
    return find.Finder({cid: dataclasses.replace(real[cid], find=c) for cid, c in cues.items()}, rules_only())


def found(the_finder, text):
    return [(m.claim, m.stance, text[m.start:m.end]) for m in the_finder.find(text) if m.stance != "mentions"]


def test_a_plain_statement_asserts(the_finder):
    """Material: none (tooling).  True: subject plus every says group, no negation: asserts."""
    assert found(the_finder, "detach() 返回的张量与原张量共享内存。") == [
        ("autograd.detach-shares-storage", "asserts", "detach() 返回的张量与原张量共享内存。")]


def test_a_negation_before_the_cue_denies(the_finder):
    """Material: none (tooling).  True: a negation in the clause that leads to the cue flips it."""
    assert found(the_finder, "detach() does not share memory with its input.")[0][1] == "denies"
    assert found(the_finder, "detach() 的结果并不与原张量共享内存。")[0][1] == "denies"


def test_words_that_only_look_negative_do_not_flip(the_finder):
    """Material: none (tooling).  True: 不同, 非常 and no_grad are no negations."""
    assert found(the_finder, "在不同的层里调用 detach() 都与原张量共享内存，非常省事。")[0][1] == "asserts"


def test_an_opposite_phrase_states_the_contrary(the_finder):
    """Material: none (tooling).  True: a '!' phrase (深拷贝 against 共享) denies; negating it asserts."""
    assert found(the_finder, "detach() 会做一次深拷贝。")[0][1] == "denies"
    assert found(the_finder, "detach() 不是深拷贝。")[0][1] == "asserts"


def test_a_reported_belief_is_turned_over(the_finder):
    """Material: none (tooling).  True: "many think X" denies X, unless a contrast word comes between."""
    assert found(the_finder, "很多人以为 detach() 是深拷贝。")[0][1] == "asserts"
    assert found(the_finder, "People think detach() makes a copy.")[0][1] == "asserts"
    assert found(the_finder, "很多人以为 detach() 很慢，其实它与原张量共享内存。")[0][1] == "asserts"
    assert found(the_finder, "常见误区：detach() 是深拷贝。")[0][1] == "asserts"
    assert found(the_finder, "Myth: detach() copies the tensor.")[0][1] == "asserts"


def test_a_falsity_marker_after_the_cue_denies(the_finder):
    """Material: none (tooling).  True: "X is a myth" / "X 是错的" denies X."""
    assert found(the_finder, "“num_workers 越大越好”是错的。")[0][1] == "asserts"   # a negated claim, denied twice


def test_the_next_clause_calling_it_false_denies(the_finder):
    """Material: none (tooling).  True: "X，这是错的" and "X, which is wrong" turn X over."""
    assert found(the_finder, "num_workers 越大越好，这是错的。")[0][1] == "asserts"   # a negated claim, denied
    assert found(the_finder, "detach() makes a deep copy, which is wrong.")[0][1] == "asserts"   # the opposite, denied
    assert found(the_finder, "detach() shares memory, which is wrong.")[0][1] == "denies"


def test_words_with_a_negating_character_are_no_negation(the_finder):
    """Material: none (tooling).  True: 类别, 识别, 别名 and 区别 contain 别 but negate nothing."""
    assert found(the_finder, "在不同类别上，detach() 与原张量共享内存，这是它和别名的区别。")[0][1] == "asserts"


def test_a_star_inside_a_phrase_matches_any_ending():
    """Material: none (tooling).  True: "more worker* is better" matches "more workers is better"."""
    assert re.search(find.phrase_pattern("more worker* is better"), find.normal("More workers is better"))
    assert not re.search(find.phrase_pattern("more worker* is better"), find.normal("more is better"))


def test_a_negated_claim(the_finder):
    """Material: none (tooling).  True: for a claim whose says is a negation, the plain phrase denies it."""
    assert found(the_finder, "num_workers 越大越好。")[0][1] == "denies"
    assert found(the_finder, "num_workers 不是越大越好。")[0][1] == "asserts"
    assert found(the_finder, "With num_workers, the more the better.")[0][1] == "denies"


def test_a_question_only_mentions(the_finder):
    """Material: none (tooling).  True: a question states nothing."""
    marks = the_finder.find("num_workers 越大越好吗？")
    assert [m.stance for m in marks] == ["mentions"] and marks[0].confidence < find.SHOWN


def test_traditional_chinese_and_full_width_read_the_same(the_finder):
    """Material: none (tooling).  True: traditional characters and full-width letters are normalised."""
    assert found(the_finder, "ｄｅｔａｃｈ() 返回的張量與原張量共享記憶體。")[0][:2] == ("autograd.detach-shares-storage", "asserts")
    # 塊 is 块 and Taiwan's 記憶體 is 内存: only the conversion finds the cue 同一块内存
    assert found(the_finder, "detach() 的結果與原張量用的是同一塊記憶體。")[0][:2] == ("autograd.detach-shares-storage", "asserts")


def test_a_commented_code_line_is_a_passage(the_finder):
    """Material: none (tooling).  True: a code line states a claim through its comment; code alone does not."""
    text = "```python\ny = x.detach()  # y 与 x 共享内存\nz = x.detach().clone()\n```\n"
    assert found(the_finder, text) == [("autograd.detach-shares-storage", "asserts", "y = x.detach()  # y 与 x 共享内存")]


def test_unless_vetoes_a_sibling(the_finder):
    """Material: none (tooling).  True: an unless phrase keeps the claim off a passage about its sibling."""
    assert found(the_finder, "view 要求张量连续。") == [("tensors.view-needs-contiguous", "asserts", "view 要求张量连续。")]
    assert found(the_finder, "和 view 不同，reshape 不要求张量连续。") == []


def test_a_typographic_apostrophe_negates_as_the_plain_one_does(the_finder):
    """Material: none (tooling).  True: "doesn’t" (U+2019, what web pages print) is a negation as
    "doesn't" is; a closing quote after a word is left alone."""
    assert find.normal("It doesn’t copy ‘view’") == "it doesn't copy ‘view’"
    assert found(the_finder, "detach() doesn’t share memory with its input.")[0][1] == "denies"


def test_an_unless_phrase_keeps_its_underscore(the_finder):
    """Material: none (tooling).  True: an unless phrase names an API with its underscore: is_contiguous
    vetoes a passage that calls it, not one that says the memory "is contiguous"."""
    view = dataclasses.replace(catalog.load()["tensors.view-needs-contiguous"],
                               find=Cues(("view",), (("contiguous",),), unless=("is_contiguous",)))
    finder = find.Finder({view.id: view}, rules_only())
    assert found(finder, "view() only works when the memory is contiguous.")[0][:2] == (view.id, "asserts")
    assert found(finder, "Before view(), check x.is_contiguous() so it stays contiguous.") == []


def test_a_rival_hides_a_mark_only_on_a_passage_of_one_statement():
    """Material: none (tooling).  True: where two claims share a passage and one matched far more of
    it, the other is hidden (under SHOWN) on a sentence, but not on a longer run, which holds several
    statements (a document that lost its punctuation)."""
    def marks(length):
        return [find.Mark("a.strong", 0, length, "asserts", 0.9, "", 40, 0.9),
                find.Mark("b.weak", 0, length, "asserts", 0.8, "", 5, 0.9)]
    short = {m.claim: m.confidence for m in find.resolve(marks(find.finder.ONE_STATEMENT))}
    long = {m.claim: m.confidence for m in find.resolve(marks(find.finder.ONE_STATEMENT + 1))}
    assert short["a.strong"] == 0.9 and short["b.weak"] < find.SHOWN
    assert long == {"a.strong": 0.9, "b.weak": 0.8}


def test_a_pronoun_takes_the_previous_sentences_subject(the_finder):
    """Material: none (tooling).  True: subject in one sentence, "它" and the cue in the next: the
    second sentence states the claim, its subject taken from the first."""
    text = "先看 detach()。它返回的张量与原张量共享内存。"
    assert found(the_finder, text) == [("autograd.detach-shares-storage", "asserts", "它返回的张量与原张量共享内存。")]


def test_a_claim_spread_over_two_sentences_gets_one_window(the_finder):
    """Material: none (tooling).  True: subject in one sentence and cue in the next, no pronoun:
    one passage of two."""
    text = "先看 detach()。返回的张量与原张量共享内存。"
    assert found(the_finder, text) == [("autograd.detach-shares-storage", "asserts", text)]


def test_marks_are_deterministic_and_bounded(the_finder):
    """Material: none (tooling).  True: the same text gives the same marks; confidences lie in (0, 1)."""
    text = "detach() 与原张量共享内存。num_workers 越大越好。view 要求张量连续。" * 3
    first, second = the_finder.find(text), the_finder.find(text)
    assert first == second and len(first) == 9
    assert all(0 < m.confidence < 1 for m in first)


@pytest.mark.parametrize("stance, material, expected", [
    ("asserts", "right", "right"), ("asserts", "wrong", "wrong"), ("denies", "wrong", "right"),
    ("denies", "right", "wrong"), ("denies", "partly", "partly"), ("asserts", "other", "not measured"),
    ("mentions", "wrong", "not measured")])
def test_a_passage_verdict_combines_stance_and_measured_verdict(stance, material, expected):
    """Material: none (tooling).  True: denying a refuted claim is right; a mention states nothing."""
    assert find.verdict(stance, material) == expected


def test_every_catalog_cue_compiles_and_is_specific():
    """Material: none (tooling).  True: the catalog's cues compile, and no subject is a bare generic word."""
    claims = catalog.load()
    generic = {"tensor", "张量", "模型", "model", "pytorch", "torch", "gpu", "数据"}
    the_finder = find.Finder(claims)
    lone = {"不", "没", "无", "非", "未", "别", "不会", "不能", "没有", "并非", "不是", "not", "no", "never", "cannot",
            "can't", "won't", "don't", "doesn't", "isn't", "without", "停止", "禁用", "stop", "stops", "disable"}
    for cid, claim_cues in the_finder.cues.items():
        compiled = the_finder.claim(cid)
        phrase_lists = [compiled.subject, compiled.unless, compiled.contrary,
                        *(p for g in compiled.groups for p in (g.plain, g.opposite))]
        for phrases in filter(None, phrase_lists):
            assert phrases.pattern is not None   # compiles (patterns are otherwise compiled on first use)
        assert not {s.strip().casefold() for s in claim_cues.subject} <= generic, cid
        for group in claim_cues.says:   # a negation is the stance's business: a claim that something does not happen is negated
            assert not lone & {p.strip().casefold().rstrip("*") for p in group if not p.startswith("!")}, cid


def test_every_concept_a_cue_names_is_defined():
    """Material: none (tooling).  True: each "@name" in a claim's says groups is a concept of
    torchclaims/find/concepts.toml; an unknown one is reported with its claim."""
    claims = catalog.load()
    assert cues.unknown_concepts(claims) == []
    assert any(any(p.lstrip("!").startswith("@") for g in c.find.says for p in g) for c in claims.values())
    view = claims["tensors.view-changes-only-metadata"]
    planted = {view.id: dataclasses.replace(view, find=dataclasses.replace(view.find, says=(("@no-such-concept",),)))}
    assert cues.unknown_concepts(planted) == [f"{view.id}: @no-such-concept"]


def test_the_fit_never_compares_an_example_with_itself_but_keeps_its_siblings():
    """finder-fit weighs an example sentence against the index without that sentence (its claim's
    other examples stay): a tutorial's new wording meets a catalog that has other sentences of it."""
    from torchclaims.find import fit, similar
    from torchclaims.find.normal import normal
    texts = [("t.a", "asserts", "view shares the storage of its base tensor", True),
             ("t.a", "denies", "view copies every element into a new buffer", True),
             ("t.a", "denies", "calling view allocates a fresh buffer and copies", True),
             ("t.b", "asserts", "reshape may return a copy when strides do not fit", True)]
    # other claims' texts, so that these n-grams are rare (similar.MAX_DF drops the common ones)
    texts += [(f"t.f{i}", "asserts", f"filler{i} zq{i}x kw{i}y", True) for i in range(60)]
    full, held = similar.Index(texts), fit.LeaveSelfOut(texts)
    query = normal("view copies every element into a new buffer")
    _, full_denies = full.scores(query)
    _, held_denies = held.scores(query)
    a = full.claims.index("t.a")
    assert full_denies[a] > 0.99, "the full index finds the sentence itself"
    assert 0 < held_denies[a] < 0.9, "left out: only the sibling myth is found, less alike"


def test_a_phrase_list_matches_as_its_alternation_would():
    """Material: none (tooling).  True: searching a cue list phrase by phrase (only the phrases
    whose key the text holds) finds what the whole list's alternation finds: the leftmost match,
    the earlier phrase of the alternation's order where two start together, and the same next
    matches."""
    lists = [["normaliz*", "Normalize", "标准化"], ["share*", "same memory", "共享", "同一块内存"],
             ["num_workers", "num workers*", "worker*"], ["more worker* is better", "better"]]
    texts = ["we normalize the data, then normalization again", "它们共享同一块内存 and share the same memory",
             "set num-workers=4; more workers is better, num_workers0", "nothing here at all", "better better"]
    for phrases in lists:
        p = cues.Phrases(phrases)
        for text in texts:
            norm = find.normal(text)
            squeezed = re.sub(r"[\s_\-]+", "", norm)
            want = p.pattern.search(norm)
            got = p.search(norm, squeezed)
            assert (got and got.span()) == (want and want.span()), (phrases, text)
            assert [m.span() for m in p.finditer(norm, squeezed)] == [m.span() for m in p.pattern.finditer(norm)]


def test_cue_phrases_compile_once_per_process(monkeypatch):
    """Material: none (tooling).  True: a cue phrase is compiled the first time a text needs it and
    kept for the process: a second finder reading the same document compiles no pattern again."""
    claims = catalog.load()
    text = ("Calling .detach() returns a tensor that shares storage with the original.\n\n"
            "Setting num_workers higher always makes the DataLoader faster.\n\n"
            "model.eval() 会关闭梯度计算。\n")
    first = find.Finder(claims).find(text)
    assert cues._COMPILED, "the phrases the text needed are compiled and kept"
    compiled = []
    original = re.compile
    monkeypatch.setattr(re, "compile", lambda *a, **k: compiled.append(a) or original(*a, **k))
    again = find.Finder(claims).find(text)
    assert again == first
    assert compiled == [], f"compiled again: {compiled[:3]}"


def test_a_pattern_built_from_its_kept_code_is_the_compiled_pattern(tmp_path, monkeypatch):
    """Material: none (tooling).  True: the code build/cache/ keeps for a cue pattern builds the
    pattern re.compile makes (same flags and code, same matches), and a damaged entry is compiled again."""
    monkeypatch.setattr(files, "CODE_CACHE", tmp_path)
    files._codes.cache_clear()
    try:
        patterns = [find.phrase_pattern(p) for p in ("num_workers", "pin memory", "深拷贝", "normaliz*", "more workers* is better")]
        first = [files.compile_kept(p) for p in patterns]
        files._save_codes()
        assert list(tmp_path.glob("re-*.marshal")), "the code is kept"
        files._codes.cache_clear()
        kept, _ = files._codes()
        assert set(patterns) <= set(kept)
        kept[patterns[1]] = (0, [1, 2, 3], 0, {}, (None,))   # damaged: the engine refuses it
        again = [files.compile_kept(p) for p in patterns]
        text = "set num-workers=4 and pin_memory; 深拷贝 normalizes; more workers is better"
        for p, a, b in zip(patterns, first, again):
            assert a == b == re.compile(p)
            assert [m.span() for m in a.finditer(text)] == [m.span() for m in re.compile(p).finditer(text)]
    finally:
        files._codes.cache_clear()


def test_finder_eval_speed_reports_each_figure(monkeypatch):
    """Material: none (tooling).  True: ``finder-eval --speed`` prints the interpreter's start, the
    model's load (weights.json alone, and with the finder's imports), each size's read and lint CPU
    seconds and the largest / next size ratio (the commands' CPU stubbed: the shape, not this
    machine's speed)."""
    from torchclaims.find import evaluate
    monkeypatch.setattr(evaluate, "_cpu", lambda argv: 0.5 if argv[1:] == ["-c", "pass"] else 1.5)
    monkeypatch.setattr(evaluate, "_model_load", lambda python: 0.001)
    lines = evaluate.speed(runs=2, sizes=((1_000, "1 KB"), (10_000, "10 KB")))
    assert lines[0] == "interpreter start: 0.500 s CPU (median of 2), subtracted below"
    assert re.fullmatch(r"model load\s+:\s+0\.001 s CPU reading weights\.json, 1\.00 s with the finder's imports "
                        r"\(median of 2\)", lines[1]), lines[1]
    rows = [re.fullmatch(r"(read --format json|lint)\s+(1 KB|10 KB): +1\.00 s CPU \(min 1\.00, max 1\.00, (\d) runs\)", line)
            for line in lines[2:6]]
    assert all(rows), lines[2:6]
    assert [(m.group(1), m.group(2), m.group(3)) for m in rows] == [
        ("read --format json", "1 KB", "2"), ("lint", "1 KB", "2"), ("read --format json", "10 KB", "1"), ("lint", "10 KB", "1")]
    assert lines[6:] == ["read --format json: 10 KB / 1 KB = 1.0x", "lint: 10 KB / 1 KB = 1.0x"]


def test_phrases_are_tried_in_one_order_whatever_order_they_come_in():
    """Equal-length phrases were ordered by a set's iteration (PYTHONHASHSEED): the order is now
    total: longest first, a whole word before its prefix, then alphabetical."""
    from torchclaims.find.normal import alternation, longest_first

    phrases = ["normaliz*", "normalize", "detach", "no_grad", "data", "view"]
    expected = ["normalize", "normaliz*", "no_grad", "detach", "data", "view"]
    for shuffled in (phrases, phrases[::-1], sorted(phrases), phrases[3:] + phrases[:3]):
        assert longest_first(shuffled) == expected, shuffled
        assert alternation(shuffled).pattern == alternation(phrases).pattern, shuffled


def test_a_heading_lends_its_subject_to_the_sentences_under_it(the_finder):
    """Material: none (tooling).  True: a sentence that does not name its subject takes it from
    the heading of its section; the heading's own "Myth" or negation does not turn the sentence."""
    text = "## detach()\n\nThe result shares memory with the original.\n"
    assert found(the_finder, text) == [("autograd.detach-shares-storage", "asserts",
                                        "The result shares memory with the original.")]
    text = "## Myth: detach() is not free\n\nThe result shares memory with the original.\n"
    assert found(the_finder, text) == [("autograd.detach-shares-storage", "asserts",
                                        "The result shares memory with the original.")]


def test_without_its_heading_a_subjectless_sentence_names_nothing(the_finder, monkeypatch):
    """Material: none (tooling).  True (planted): with headings lending nothing (HEADING 0) the
    section's sentence is found no more: the test above depends on the heading."""
    from torchclaims.find import structure
    monkeypatch.setattr(structure, "HEADING", 0)
    assert found(the_finder, "## detach()\n\nThe result shares memory with the original.\n") == []


@pytest.mark.parametrize("line, code", [
    ("device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')", True),
    ("max_values, max_indices = torch.max(x, dim=1)  # 按行", True),
    ("torch.Size([2, 3])", True),
    ("for name, param in model.named_parameters():", True),
    ("Use model.eval() before you evaluate.", False),
    ("张量是多维数组", False),                      # a CJK identifier parses, but is no code
    ("x.view(3, 4) 共享内存", False),
    ("See torch.max(x).", False),
])
def test_a_line_of_python_outside_a_fence_reads_as_code(line, code):
    """Material: none (tooling).  True: a page that lost its fences still has lines of Python; they
    parse, and name more than a word. Prose and Chinese do not."""
    assert find.units.reads_as_code(line) is code


@pytest.mark.parametrize("line, states", [
    ("z = y.detach()  # 不拷贝，z 和 y 共用存储", True),
    ("print(v.grad)          # tensor([0.2000, 0.4000])", True),   # the printed value states the result
    ("# model.eval()             # Evaluation mode (disables dropout, BN updates)", True),   # its own comment
    ("# Zero the gradients", False),                 # a step's label
    ("# x = x.to('cuda')", False),                   # commented-out code
    ("# for name, param in model.named_parameters():", False),
    ("optimizer.zero_grad()", False),                # code alone
    ("# zero_grad() clears the gradients before each new step", True),
])
def test_a_code_line_states_through_its_comment_unless_the_comment_is_a_label_or_code(line, states):
    """Material: none (tooling).  True: "# Zero the gradients" above a call labels a step and
    "# x = x.to('cuda')" is code put out of action; neither is a statement."""
    assert find.units.states_through_comment(line) is states


def test_a_step_label_in_code_is_no_passage(the_finder):
    """Material: none (tooling).  True: in a fenced block, a short comment alone on its line is not
    a passage; a comment that says something is."""
    text = "```python\n# detach shares\ny = x.detach()\n# detach() shares memory with x\n```\n"
    assert [f[2] for f in found(the_finder, text)] == ["# detach() shares memory with x"]


@pytest.mark.parametrize("text, output", [
    ("tensor([2, 2]) torch.Size([2])", True),
    ("MLP(\n(hidden): LazyLinear(in_features=0, out_features=256, bias=True)", True),
    ("torch.max(input, dim) returns a tuple", False),
    ("torch.compile(mode=default) 2180 (74%) 19.5 1200", False),   # a table row of figures states them
    ("x.view(3, 4) 共享内存", False),
])
def test_a_printed_repr_outside_a_fence_states_nothing(text, output):
    """Material: none (tooling).  True: what a program prints (a name and its brackets, no prose)
    is output, not a statement."""
    assert find.units.reads_as_output(text) is output


def test_a_base64_run_states_nothing():
    """Material: none (tooling).  True: an embedded image's base64 is data."""
    assert find.units.is_blob("iVBORw0KGgo" + "A" * 200)
    assert not find.units.is_blob("detach() shares memory with the original tensor.")


def test_a_negating_verb_negates_the_cue_it_governs_not_one_further_on():
    """Material: none (tooling).  True: "stops tracking" negates tracking; in "disables autograd
    for inference" the verb governs autograd and says nothing against inference."""
    from torchclaims.find import stance
    near = "no_grad stops tracking"
    assert stance.negations(near, [(near.index("tracking"), len(near))]) == 1
    far = "no_grad() disables autograd for inference"
    assert stance.negations(far, [(far.index("for inference"), len(far))]) == 0
    assert stance.negations(far, [(far.index("autograd for"), far.index(" for"))]) == 1


@pytest.mark.parametrize("text, settings", [
    ("<p>step_size=5, gamma=0.5, init_lr=0.1</p>", True),      # a figure's caption
    ("milestones=[5, 10, 15], gamma=0.5", True),
    ("Use step_size=5 here.", False),
    ("StepLR multiplies the rate by gamma every step_size epochs.", False),
])
def test_a_list_of_settings_states_nothing(text, settings):
    """Material: none (tooling).  True: keyword arguments and nothing else (tags aside) are settings."""
    assert find.units.reads_as_settings(text) is settings


@pytest.mark.parametrize("text, link", [
    ("- [3. Gradient Accumulation Reset](#gradient-accumulation-reset)", True),
    ("[view 共享内存](#view)", True),
    ("See [the docs](https://pytorch.org) for what view() shares.", False),
])
def test_a_table_of_contents_entry_states_nothing(text, link):
    """Material: none (tooling).  True: a line that is only a link names a section; it states nothing."""
    assert find.units.is_link_only(text) is link


def test_a_code_comment_is_weighed_only_for_the_claims_its_line_names(the_finder):
    """Material: none (tooling).  True: in a code block, a comment like a claim's wording but on a
    line that names no subject of it is no mark; the same comment beside the API is."""
    assert found(the_finder, "```python\nz = y  # 与原张量共享同一块内存\n```\n") == []
    assert [f[0] for f in found(the_finder, "```python\nz = y.detach()  # 与原张量共享同一块内存\n```\n")] == \
        ["autograd.detach-shares-storage"]


def test_an_english_title_without_markup_reads_as_a_heading():
    """Material: none (tooling).  True: a page the web left flat keeps its title as a line of its
    own, capitalised, without a sentence's closing punctuation; a sentence is no title."""
    from torchclaims.segment import units
    text = "Understanding `get_lr()` in PyTorch Schedulers\n\nThe scheduler changes the rate.\n"
    us = units(text)
    assert find.units.title_line(us, 0, text) and not find.units.title_line(us, 1, text)
    text = "调度器改变学习率\n\n后文。\n"   # Chinese: no capitals to tell a title by
    assert not find.units.title_line(units(text), 0, text)


def test_a_list_item_under_a_lead_in_still_takes_its_sections_subject(the_finder):
    """Material: none (tooling).  True: a list item whose lead-in names nothing takes the subject of
    its section's heading, as a sentence does."""
    text = "## detach()\n\nTwo facts:\n\n- The result shares memory with the original.\n"
    assert [f[:2] for f in found(the_finder, text)] == [("autograd.detach-shares-storage", "asserts")]


def test_without_the_section_a_list_item_under_a_bare_lead_in_names_nothing(the_finder, monkeypatch):
    """Material: none (tooling).  True (planted): with headings lending nothing, the list item of the
    test above is found no more."""
    from torchclaims.find import structure
    monkeypatch.setattr(structure, "HEADING", 0)
    assert found(the_finder, "## detach()\n\nTwo facts:\n\n- The result shares memory with the original.\n") == []


@pytest.mark.parametrize("line, states", [
    ("# Convert from tensor to numpy array", False),
    ("# 定义一个简单的两层网络", False),
    ("# Converting to numpy shares memory with the tensor on the CPU, so edits show in both", True),   # ten words
    ("# zero_grad() clears the gradients before each new step", True),
])
def test_a_comment_that_opens_with_a_steps_verb_labels_the_step(line, states):
    """Material: none (tooling).  True: a comment alone on its line that opens with a step's verb
    (lang/*.toml step_verbs) and says little labels what the code does next; a long one still states."""
    assert find.units.states_through_comment(line) is states


def test_a_tables_header_row_states_nothing():
    """Material: none (tooling).  True: the row above |---| names columns; the rows under it may state."""
    text = "| 方法 | 是否复制数据 |\n|---|---|\n| view() | 不复制 |\n"
    assert find.units.table_header(text, text.index("\n"))
    assert not find.units.table_header(text, len(text) - 1)


@pytest.mark.parametrize("text, asks", [
    ("• Discuss different deployment strategies and tools like TorchScript.", True),
    ("3. Explain why view() needs a contiguous tensor.", True),
    ("简述 detach() 与 clone() 的区别。", True),
    ("Write `batch = batch.to(device)`: keep what comes back.", False),   # advice, not a task
    ("detach() shares memory with the original.", False),
])
def test_a_task_set_to_the_reader_is_read_as_a_question(text, asks):
    """Material: none (tooling).  True: an exercise or a learning objective ("Discuss ...", "简述 ...",
    lang/*.toml prompt_verbs) asks; like a question, it states nothing."""
    from torchclaims.find.normal import normal
    from torchclaims.find.words import words
    assert (words().prompt.match(normal(text)) is not None) is asks


def test_a_task_set_to_the_reader_is_only_a_mention(the_finder):
    """Material: none (tooling).  True: the finder reads an exercise ("Explain why ...") as it reads a
    question: the claim is there, stated neither way."""
    assert found(the_finder, "detach() shares memory with its input.")[0][1] == "asserts"
    assert found(the_finder, "Explain why detach() shares memory with its input.") == []
    assert [m.stance for m in the_finder.find("Explain why detach() shares memory with its input.")] == ["mentions"]


def test_numbers_alone_state_nothing():
    """Material: none (tooling).  True: a listing's line numbers ("1 2 3 4") are no words."""
    assert not find.units.says_something("1 2 3 4")
    assert find.units.says_something("view shares memory")


@pytest.mark.parametrize("line, heading", [
    ("Results:", True), ("- **Step 2: the loss**", True), ("**自动实现锁页内存**", True), ("训练循环：", True),
    ("CrossEntropyLoss in PyTorch already applies a softmax to its input, as below:", False),
    ("num_workers 大于 0 时，DataLoader 会开多个子进程在后台提前准备数据，例如：", False),
])
def test_a_short_line_ending_in_a_colon_labels_what_follows_a_long_one_states(line, heading):
    """Material: none (tooling).  True: an all-emphasis line, or a line of at most 40 characters ending in
    a colon, is a heading in all but name; a whole sentence that ends in a colon to introduce an
    example still states something."""
    from torchclaims.find.units import LABEL
    assert bool(LABEL.search(line)) == heading
