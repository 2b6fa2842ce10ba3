"""torchclaims/links.py read from source: which test functions a spec file has, and their claim links."""
import ast
import textwrap

from torchclaims import links

SOURCE = textwrap.dedent('''
    import pytest

    pytestmark = pytest.mark.claim("tensors.shared")

    def helper():
        def test_inside_a_helper():
            pass

    @pytest.mark.claim("tensors.own", as_written=True)
    def test_first():
        def test_nested_in_a_test():
            pass
        assert [lambda: 1]

    if True:
        def test_under_an_if():
            pass

    class TestGroup:
        def test_method(self):
            pass

    async def test_async():
        pass
''')


def test_the_functions_pytest_can_collect_are_read_and_those_inside_a_function_are_not(tmp_path):
    path = tmp_path / "test_x.py"
    path.write_text(SOURCE, encoding="utf-8")
    read = links.file_sources(path, "specs/test_x.py")
    assert [s.name for s in read] == ["specs/test_x.py::test_first", "specs/test_x.py::test_async",
                                      "specs/test_x.py::test_under_an_if", "specs/test_x.py::test_method"]
    assert read[0].links == (("tensors.shared", False), ("tensors.own", True))
    assert all(s.links[0] == ("tensors.shared", False) for s in read)


def test_the_order_is_ast_walks_without_the_nested_definitions():
    tree = ast.parse(SOURCE)
    nested = {"test_inside_a_helper", "test_nested_in_a_test"}
    walked = [n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
              and n.name.startswith("test") and n.name not in nested]
    assert [s.func.name for s in links.file_sources("test_x.py", "test_x.py", tree)] == walked
