"""The hollow-spec and label lints of ``python -m torchclaims check``, on planted bad examples."""
import dataclasses
import os
import textwrap

import pytest

from torchclaims import catalog, forked, lint


def kinds(source: str) -> list[tuple[str, int]]:
    return [(f.kind, f.line) for f in lint.lint_source(textwrap.dedent(source), "specs/test_x.py")]


# ---------------------------------------------------------------- no-check

def test_a_spec_that_asserts_nothing_is_found():
    assert kinds("""
        import torch
        def test_runs_only():
            torch.zeros(3).sum()
    """) == [("no-check", 3)]


@pytest.mark.parametrize("body", [
    "assert torch.zeros(3).sum() == 0",
    "torch.testing.assert_close(torch.zeros(3), torch.zeros(3) * 1)",
    "with pytest.raises(RuntimeError):\n        torch.zeros(3).view(4)",
    "with pytest.warns(UserWarning):\n        torch.zeros(3)",
    "pytest.fail('never')",
    "torch.autograd.gradcheck(torch.sin, (torch.rand(2, dtype=torch.float64, requires_grad=True),))",
    "check_sum(torch.zeros(3))",
])
def test_every_kind_of_check_counts(body):
    source = f"""
import pytest
import torch

def check_sum(t):
    assert t.sum() == 0

def test_checks():
    {body}
"""
    assert kinds(source) == []


def test_a_helper_that_checks_nothing_does_not_count():
    assert kinds("""
        import torch
        def build(t):
            return t + 1
        def test_builds():
            build(torch.zeros(2))
    """) == [("no-check", 5)]


def test_an_as_written_spec_that_declares_its_exception_counts():
    assert kinds("""
        import pytest, torch
        @pytest.mark.claim("tensors.x", as_written=True, raises=RuntimeError, match="shape")
        def test_as_written_view():
            torch.zeros(3).view(4)
    """) == []


def test_an_as_written_spec_relying_on_a_stray_exception_is_found():
    assert kinds("""
        import pytest, torch
        @pytest.mark.claim("tensors.x", as_written=True)
        def test_as_written_view():
            torch.zeros(3).view(4)
    """) == [("no-check", 4)]


# ---------------------------------------------------------------- const-compare

def test_constants_compared_with_constants_are_found():
    """The planted copy of the ResNet-50 table spec: its own figures, its own arithmetic."""
    assert kinds("""
        import pytest
        TABLE = {"eager": (1250, None), "default": (2180, 74)}
        @pytest.mark.parametrize("mode", ["default"])
        def test_gain(mode):
            eager = TABLE["eager"][0]
            throughput, gain = TABLE[mode]
            computed = round((throughput / eager - 1) * 100)
            assert computed == gain, f"{computed} != {gain}"
    """) == [("const-compare", 9)]


def test_typed_statistics_compared_through_torch_tensor_are_found():
    """The planted copy of the CIFAR-10 statistics spec."""
    assert kinds("""
        import torch
        MINE = (0.4914, 0.4822)
        THEIRS = (0.49139968, 0.48215841)
        def test_means():
            torch.testing.assert_close(torch.tensor(MINE), torch.tensor(THEIRS), atol=5e-4, rtol=0)
            ratio = torch.tensor(THEIRS) / torch.tensor(MINE)
            assert (ratio > 0.99).all()
    """) == [("const-compare", 6), ("const-compare", 8)]


@pytest.mark.parametrize("body", [
    "assert torch.arange(12).view(3, 4).stride() == (4, 1)",           # torch computes the left side
    "seen = []\n    seen.append(1)\n    assert len(seen) == 1",         # a list the spec fills
    "held = {}\n    held[1] = torch.ones(1).item()\n    assert held[1] == 1.0",
    "data = [1.0]\n    t = torch.as_tensor(data)\n    data[0] = 9.0\n    assert t[0].item() == 1.0",
    "reached = False\n    with pytest.raises(ValueError):\n        raise ValueError\n        reached = True\n"
    "    assert not reached",
    "x = torch.zeros(2)\n    assert x.sum() == SHAPE[0] - 2",
])
def test_values_that_torch_produces_are_not_constants(body):
    source = f"""
import pytest
import torch
SHAPE = (2, 3)

def test_ok():
    {body}
"""
    assert kinds(source) == []


# ---------------------------------------------------------------- xfail and skip

def test_xfail_inside_a_spec_is_found():
    assert kinds("""
        import pytest, torch
        def test_cuda_thing():
            if not torch.cuda.is_available():
                pytest.xfail("no GPU here")
            assert torch.cuda.device_count() > 0
    """) == [("xfail-in-spec", 5)]


def test_a_skip_without_reason_is_found_and_one_with_a_reason_is_not():
    assert kinds("""
        import pytest
        def test_a():
            pytest.skip()
            assert False
        def test_b():
            pytest.skip("needs CUDA")
            assert False
    """) == [("skip-without-reason", 4)]


def test_spec_findings_name_file_and_line(tmp_path):
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "test_bad.py").write_text("def test_nothing():\n    pass\n", encoding="utf-8")
    (specs / "helpers.py").write_text("def test_not_a_spec_file():\n    pass\n", encoding="utf-8")
    found = lint.spec_findings(specs, tmp_path)
    assert [str(f).split(": ")[0] for f in found] == ["specs/test_bad.py:1"]
    assert str(found[0]).startswith("specs/test_bad.py:1: no-check: test_nothing")


# ---------------------------------------------------------------- labels

def claim(cid="tensors.x", verdict="not-checkable", truth="Not checkable: needs a download.",
          truth_zh="无法检验：需要下载。"):
    return catalog.Claim(id=cid, source=("000_9a03721c87560f23.txt §1",), topic=cid.split(".")[0],
                         says="s", says_zh="说", verdict=verdict, truth=truth, truth_zh=truth_zh)


def gpu_claim(cid="devices.x", truth="Needs CUDA: page-locked memory needs a CUDA driver.",
              truth_zh="需要 CUDA：锁页内存依赖 CUDA 驱动。"):
    return claim(cid, verdict="gpu-only", truth=truth, truth_zh=truth_zh)


def project(tmp_path, spec="", bench=""):
    (tmp_path / "specs").mkdir()
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "specs" / "test_x.py").write_text(textwrap.dedent(spec), encoding="utf-8")
    (tmp_path / "benchmarks" / "bench_x.py").write_text(textwrap.dedent(bench), encoding="utf-8")
    return tmp_path / "specs", tmp_path / "benchmarks"


def label_kinds(claims, specs, bench):
    return [f.kind for f in lint.label_findings({c.id: c for c in claims}, specs, bench)]


def test_a_well_labelled_not_checkable_claim_passes(tmp_path):
    assert label_kinds([claim()], *project(tmp_path)) == []


def test_a_not_checkable_claim_that_a_benchmark_is_marked_with_is_found(tmp_path):
    bench = 'import pytest\n@pytest.mark.claim("tensors.x")\ndef test_b(benchmark):\n    pass\n'
    assert label_kinds([claim()], *project(tmp_path, bench=bench)) == ["measured-not-checkable"]


def test_only_the_claim_marker_links_a_benchmark_to_a_claim(tmp_path):
    """Rows naming an unmarked claim fail the benchmark run itself (benchmarks/conftest.py)."""
    bench = 'def test_b(benchmark):\n    benchmark.extra_info.update(claim="tensors.x", measured=1.0)\n'
    assert label_kinds([claim()], *project(tmp_path, bench=bench)) == []


@pytest.mark.parametrize("truth, truth_zh", [
    ("The material is wrong: it came in 1.7.", "无法检验：需要旧版本。"),
    ("Not checkable: needs torch 1.x.", "资料说错了。"),
    ("It is not checkable because...", "无法检验：..."),
])
def test_a_not_checkable_truth_must_start_by_saying_why(tmp_path, truth, truth_zh):
    found = label_kinds([claim(truth=truth, truth_zh=truth_zh)], *project(tmp_path))
    assert found == ["not-checkable-without-reason"]


def test_a_not_checkable_claim_that_a_spec_checks_is_found(tmp_path):
    spec = '''
        import pytest
        @pytest.mark.claim("tensors.x")
        def test_x():
            assert 1 + 1 == 2 or True
    '''
    found = lint.label_findings({"tensors.x": claim()}, *project(tmp_path, spec))
    assert [f.kind for f in found] == ["not-checkable-with-spec"]
    assert "specs/test_x.py::test_x" in found[0].message


def test_a_gpu_only_claim_whose_truth_spec_runs_on_cpu_is_found(tmp_path):
    spec = '''
        import pytest, torch
        @pytest.mark.claim("devices.x")
        @pytest.mark.skipif(torch.cuda.is_available(), reason="covers CPU machines")
        def test_on_cpu():
            assert not torch.empty(1).is_pinned()
        @pytest.mark.gpu
        @pytest.mark.claim("devices.x")
        def test_on_gpu():
            assert torch.empty(1).pin_memory().is_pinned()
    '''
    found = lint.label_findings({"devices.x": gpu_claim()}, *project(tmp_path, spec))
    assert [f.kind for f in found] == ["gpu-only-runs-on-cpu"]
    assert "test_x.py::test_on_cpu" in found[0].message


@pytest.mark.parametrize("guard", [
    "@pytest.mark.gpu",
    '@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")',
])
def test_a_gpu_only_claim_with_guarded_specs_passes(tmp_path, guard):
    spec = f'''
import pytest, torch
@pytest.mark.claim("devices.x")
{guard}
def test_on_gpu():
    assert torch.empty(1, device="cuda").is_cuda
@pytest.mark.claim("devices.x")
def test_skips_itself():
    if not torch.cuda.is_available():
        pytest.skip("needs CUDA")
    assert torch.cuda.device_count() > 0
'''
    assert label_kinds([gpu_claim()], *project(tmp_path, spec)) == []


def test_claim_findings_get_the_line_of_their_entry(tmp_path):
    (tmp_path / "tensors.toml").write_text('# head\n\n[[claim]]\nid = "tensors.x"\n', encoding="utf-8")
    found = lint._with_lines([lint.Finding("claims/tensors.toml", 0, "k", "tensors.x is wrong")], tmp_path)
    assert str(found[0]) == "claims/tensors.toml:4: k: tensors.x is wrong"


@pytest.mark.e2e  # runs python -m torchclaims check
def test_check_prints_a_planted_label_finding_and_fails(tmp_path):
    """End to end: `python -m torchclaims check --static` over a planted catalog."""
    (tmp_path / "tensors.toml").write_text(
        '[[claim]]\nid = "tensors.empty-faster-than-zeros"\nsource = "000_9a03721c87560f23.txt §1"\n'
        'topic = "tensors"\nsays = "s"\nsays_zh = "说"\nverdict = "not-checkable"\ntruth = "The material is wrong."\n'
        'truth_zh = "资料说错了。"\n', encoding="utf-8")
    result = forked.run(["-m", "torchclaims", "check", "--static"], cwd=catalog.ROOT, timeout=120,
                        env=os.environ | {"TORCHCLAIMS_CLAIMS_DIR": str(tmp_path)})
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert ("claims/tensors.toml:2: measured-not-checkable: tensors.empty-faster-than-zeros is not-checkable but "
            "measured by benchmarks/bench_tensors.py::test_empty_vs_zeros") in lines, lines
    assert any(line.startswith("claims/tensors.toml:2: not-checkable-without-reason: tensors.empty-faster-than-zeros")
               for line in lines), lines


def test_a_gpu_only_claim_whose_gpu_spec_touches_no_cuda_is_found(tmp_path):
    """A gpu marker on a spec that would run unchanged on a CPU only hides a CPU check."""
    spec = '''
import pytest, torch
@pytest.mark.gpu
@pytest.mark.claim("devices.x")
def test_shape_is_metadata():
    """Mentions CUDA in its docstring only."""
    x = torch.ones(2, 3)
    assert x.shape == (2, 3)
@pytest.mark.gpu
@pytest.mark.claim("devices.y")
def test_on_gpu():
    assert _cuda_tensor().is_cuda
def _cuda_tensor():
    return torch.ones(1, device="cuda")
'''
    found = lint.label_findings({"devices.x": gpu_claim(), "devices.y": gpu_claim("devices.y")},
                                *project(tmp_path, spec))
    assert [(f.kind, f.message.split()[0]) for f in found] == [("gpu-only-spec-without-cuda", "devices.x")]
    assert "test_x.py::test_shape_is_metadata" in found[0].message


@pytest.mark.parametrize("truth, truth_zh, found", [
    ("Needs CUDA: the caching allocator.", "需要 CUDA：缓存分配器。", []),
    ("A speed figure for one GPU; it can only be measured with CUDA.", "只能在 GPU 上测量。", []),
    ("Checked only where CUDA exists.", "只能在有CUDA时验证。", []),
    ("empty_cache returns cached blocks to the driver.", "需要 CUDA。", ["gpu-only-without-reason"]),
    ("Needs CUDA: the caching allocator.", "只把缓存还给驱动。", ["gpu-only-without-reason"]),
])
def test_a_gpu_only_truth_says_what_needs_cuda(tmp_path, truth, truth_zh, found):
    assert label_kinds([gpu_claim(truth=truth, truth_zh=truth_zh)], *project(tmp_path)) == found


def test_an_as_written_spec_of_a_confirmed_claim_is_found(tmp_path):
    """A partly claim relabelled confirmed loses its as-written spec; one left behind is found."""
    spec = '''
        import pytest, torch
        @pytest.mark.claim("tensors.x")
        def test_truth():
            assert torch.ones(2).t().shape == (2,)
        @pytest.mark.claim("tensors.x", as_written=True)
        def test_as_written():
            assert torch.ones(2).t().shape == (1, 2)
    '''
    confirmed = claim(verdict="confirmed", truth="Right.", truth_zh="对。")
    found = lint.label_findings({"tensors.x": confirmed}, *project(tmp_path, spec))
    assert [f.kind for f in found] == ["as-written-on-a-right-claim"]
    assert "specs/test_x.py::test_as_written" in found[0].message
    in_range = dataclasses.replace(confirmed, verdict="version-dependent", versions="<2.0")
    assert label_kinds([in_range], tmp_path / "specs", tmp_path / "benchmarks") == []


# ---------------------------------------------------------------- checks that cannot fail

def test_callable_of_what_a_constructor_or_compile_built_is_found():
    """The planted copy of the compile-modes spec: torch.compile raises or returns a callable."""
    assert kinds("""
        import torch
        from torch import nn
        def test_modes():
            for mode in ("default", "max-autotune"):
                assert callable(torch.compile(nn.Linear(2, 2), mode=mode)), mode
            model = nn.Linear(2, 2)
            assert callable(model)
            scripted = torch.jit.script(model)
            assert scripted is not None and callable(scripted)
    """) == [("callable-of-a-call", 6), ("callable-of-a-call", 8), ("callable-of-a-call", 10)]


@pytest.mark.parametrize("body", [
    'assert callable(getattr(torch, "compile", None)), "no torch.compile"',   # a lookup can give None
    'assert callable(torch.jit.script)',
    'assert callable(torch.compile(torch.nn.Linear(2, 2))(torch.ones(2)).sum) or True',
])
def test_callable_of_a_lookup_is_not_found(body):
    assert [k for k, _ in kinds(f"import torch\ndef test_x():\n    {body}\n")] == []


def test_an_assertion_that_restates_its_conditional_input_is_found():
    """The planted copy of the device-idiom spec: the expected side is the conditional the device was built from."""
    assert kinds("""
        import torch
        def test_idiom():
            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            assert device.type == ("cuda" if torch.cuda.is_available() else "cpu")
            name = str(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
            assert ("cuda" if torch.cuda.is_available() else "cpu") == name
    """) == [("self-compare", 5), ("self-compare", 7)]


def test_an_expression_compared_with_itself_is_found():
    assert kinds("""
        import torch
        def test_same():
            x = torch.ones(2)
            assert x.shape == x.shape
            y = x
            assert x.shape[0] == y.shape[0]
            z = y
            assert x.dtype == torch.float32 and z is x
        def test_same_object():
            x = torch.ones(2)
            torch.testing.assert_close(x, x)
            assert x is x
    """) == [("self-compare", 5), ("self-compare", 7), ("self-compare", 9), ("self-compare", 12),
             ("self-compare", 13)]


@pytest.mark.parametrize("body", [
    "model = torch.nn.Dropout(0.5)\n    x = torch.ones(8)\n    assert torch.equal(model(x), model(x)) or True\n"
    "    torch.testing.assert_close(model.eval()(x), model.eval()(x))",       # determinism: two calls
    "t = torch.ones(2)\n    version = t._version\n    t += 1\n    assert t._version == version",  # t changed
    "t = torch.ones(2)\n    version = t._version\n    t.add_(1)\n    assert t._version == version",  # t mutated
    "m = torch.nn.Linear(2, 2)\n    dtype = m.weight.dtype\n    m.double()\n    assert m.weight.dtype == dtype",
    "x = torch.zeros(1) / 0\n    assert x != x",                                              # a NaN test
    "a = torch.rand(2)\n    b = torch.rand(2)\n    assert a.shape == b.shape",              # two objects
    'y = torch.ones(2).to("cuda" if torch.cuda.is_available() else "cpu")\n'
    '    assert y.device.type == ("cuda" if torch.cuda.is_available() else "cpu")',  # .to computes the device
])
def test_a_comparison_of_what_torch_computes_is_not_self_compare(body):
    assert [k for k, _ in kinds(f"import torch\ndef test_x():\n    {body}\n")] == []


def test_an_as_written_spec_expecting_any_exception_is_found():
    """The planted copy of the compile-global-state spec, and a marker declaring raises=Exception."""
    assert kinds("""
        import pytest, torch
        @pytest.mark.claim("compile.x", as_written=True)
        def test_as_written_rejects():
            with pytest.raises(Exception):
                torch.compile(lambda x: x)(torch.ones(1))
        @pytest.mark.claim("compile.y", as_written=True, raises=(ValueError, BaseException))
        def test_as_written_declares():
            torch.ones(1).view(2)
        @pytest.mark.claim("compile.z", as_written=True)
        def test_as_written_base():
            with pytest.raises((RuntimeError, builtins.BaseException)):
                torch.ones(1).view(2)
    """) == [("broad-raises-as-written", 5), ("broad-raises-as-written", 7), ("broad-raises-as-written", 12)]


def test_a_broad_raises_in_a_truth_spec_or_a_named_exception_as_written_is_not_found():
    assert kinds("""
        import pytest, torch
        @pytest.mark.claim("compile.x")
        def test_truth_rejects():
            with pytest.raises(Exception):
                torch.ones(1).view(2)
        @pytest.mark.claim("compile.y", as_written=True)
        def test_as_written_named():
            with pytest.raises(RuntimeError, match="shape"):
                torch.ones(1).view(2)
    """) == []


def test_a_module_level_as_written_marker_counts():
    assert kinds("""
        import pytest, torch
        pytestmark = pytest.mark.claim("compile.x", as_written=True)
        def test_as_written_rejects():
            with pytest.raises(BaseException):
                torch.ones(1).view(2)
    """) == [("broad-raises-as-written", 5)]


def test_a_module_level_claim_marker_links_its_specs_for_the_gpu_rules(tmp_path):
    """The lints read links through torchclaims.links: a file-wide pytestmark claim counts."""
    spec = '''
        import pytest, torch
        pytestmark = [pytest.mark.claim("devices.x")]
        def test_runs_on_cpu():
            assert not torch.empty(1).is_pinned()
    '''
    found = lint.label_findings({"devices.x": gpu_claim()}, *project(tmp_path, spec))
    assert [f.kind for f in found] == ["gpu-only-runs-on-cpu"]
    assert "specs/test_x.py::test_runs_on_cpu" in found[0].message


def test_a_module_level_gpu_marker_guards_and_a_spec_without_cuda_is_still_found(tmp_path):
    spec = '''
        import pytest, torch
        pytestmark = [pytest.mark.gpu, pytest.mark.claim("devices.x")]
        def test_shape_only():
            assert torch.ones(2).shape == (2,)
    '''
    found = lint.label_findings({"devices.x": gpu_claim()}, *project(tmp_path, spec))
    assert [f.kind for f in found] == ["gpu-only-spec-without-cuda"]


def test_as_written_specs_have_one_naming_style():
    """test_as_written_<claim words> for the material's statement; a truth spec never says as_written."""
    assert kinds("""
        import pytest
        @pytest.mark.claim("tensors.x", as_written=True)
        def test_view_copies_as_written():
            assert False
        @pytest.mark.claim("tensors.x")
        def test_as_written_view_shares():
            assert True
        @pytest.mark.claim("tensors.x")
        def test_view_shares_not_as_written():
            assert True
        @pytest.mark.claim("tensors.x", as_written=True)
        def test_as_written_view_copies():
            assert False
        def test_helper_without_a_claim():
            assert True
    """) == [("as-written-name", 4), ("as-written-name", 7), ("as-written-name", 10)]
