"""The catalog schema: every way an entry can be wrong is reported, naming the entry."""
import os

import pytest

from torchclaims import catalog

GOOD = {
    "id": "tensors.view-shares-storage",
    "source": "000_9a03721c87560f23.txt §2.1",
    "topic": "tensors",
    "says": "view returns a tensor over the same memory",
    "says_zh": "view 返回的张量与原张量共用内存",
    "verdict": "confirmed",
    "truth": "it does",
    "truth_zh": "确实如此",
}


def toml_entry(entry: dict) -> str:
    def value(v):
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return '"' + str(v).replace('"', '\\"') + '"'
    return "[[claim]]\n" + "".join(f"{k} = {value(v)}\n" for k, v in entry.items()) + "\n"


def write(tmp_path, *entries, topic="tensors"):
    (tmp_path / f"{topic}.toml").write_text("".join(toml_entry(e) for e in entries), encoding="utf-8")
    return tmp_path


def test_a_valid_entry_loads(tmp_path):
    claims = catalog.load(write(tmp_path, GOOD))
    assert list(claims) == ["tensors.view-shares-storage"]
    assert claims["tensors.view-shares-storage"].source == ("000_9a03721c87560f23.txt §2.1",)


def test_a_source_list_is_accepted(tmp_path):
    entry = {**GOOD, "source": ["000_9a03721c87560f23.txt §2.1", "004_9d58428a819b84da.txt §2.2"]}
    assert len(catalog.load(write(tmp_path, entry))["tensors.view-shares-storage"].source) == 2


@pytest.mark.parametrize("field", catalog.REQUIRED)
def test_a_missing_field_is_reported_with_the_entry(tmp_path, field):
    entry = {k: v for k, v in GOOD.items() if k != field}
    with pytest.raises(catalog.CatalogError, match=f"missing field '{field}'"):
        catalog.load(write(tmp_path, entry))


def test_an_unknown_field_is_reported_with_the_entry(tmp_path):
    with pytest.raises(catalog.CatalogError, match=r"claim 'tensors.view-shares-storage': unknown field 'sayz'"):
        catalog.load(write(tmp_path, {**GOOD, "sayz": "typo"}))


def test_a_duplicate_id_is_reported(tmp_path):
    with pytest.raises(catalog.CatalogError, match=r"'tensors.view-shares-storage': duplicate id"):
        catalog.load(write(tmp_path, GOOD, GOOD))


def test_a_bad_verdict_is_reported(tmp_path):
    with pytest.raises(catalog.CatalogError, match=r"'tensors.view-shares-storage': bad verdict 'true'"):
        catalog.load(write(tmp_path, {**GOOD, "verdict": "true"}))


def test_a_claim_of_the_wider_world_cites_its_tutorials_by_address(tmp_path):
    entry = {**GOOD, "source": ["https://example.org/post.html §Saving a model", "https://example.net/notes.md",
                                "https://example.org/post.html §Loading"]}
    claim = catalog.load(write(tmp_path, entry))["tensors.view-shares-storage"]
    assert claim.tutorials == ("https://example.org/post.html", "https://example.net/notes.md")
    assert claim.seed_sources == ()
    assert claim.source_brief() == "found in 2 tutorials" and claim.source_brief("zh") == "见于 2 篇教程"
    assert claim.source_labels() == "found in 2 tutorials: https://example.org/post.html, https://example.net/notes.md"


def test_a_claim_of_the_four_documents_names_no_tutorials(tmp_path):
    claim = catalog.load(write(tmp_path, GOOD))["tensors.view-shares-storage"]
    assert claim.tutorials == () and claim.seed_sources == claim.source
    assert "tutorial" not in claim.source_labels()


@pytest.mark.parametrize("source", [
    "https:// §x",                        # an address with nothing in it
    "see https://example.org/post",      # not an address
    "001_nonexistent.txt §2.1",          # names no seed file
    "000_9a03721c87560f23.txt",          # no section
    "000_9a03721c87560f23.txt section 2",
])
def test_a_source_naming_no_seed_section_is_reported(tmp_path, source):
    with pytest.raises(catalog.CatalogError, match=r"'tensors.view-shares-storage': source"):
        catalog.load(write(tmp_path, {**GOOD, "source": source}))


def test_an_id_outside_its_topic_is_reported(tmp_path):
    with pytest.raises(catalog.CatalogError, match="id prefix must be its topic"):
        catalog.load(write(tmp_path, {**GOOD, "id": "autograd.view-shares-storage"}))


def test_a_version_dependent_claim_needs_its_range(tmp_path):
    with pytest.raises(catalog.CatalogError, match="needs 'versions'"):
        catalog.load(write(tmp_path, {**GOOD, "verdict": "version-dependent"}))


def test_an_empty_text_is_reported(tmp_path):
    with pytest.raises(catalog.CatalogError, match="truth_zh must be a non-empty string"):
        catalog.load(write(tmp_path, {**GOOD, "truth_zh": "  "}))


def test_broken_toml_is_reported_with_the_file(tmp_path):
    (tmp_path / "tensors.toml").write_text("[[claim]\nid = ", encoding="utf-8")
    with pytest.raises(catalog.CatalogError, match="tensors.toml: not valid TOML"):
        catalog.load(tmp_path)


def test_every_problem_is_reported_at_once(tmp_path):
    bad = {**GOOD, "verdict": "maybe"}
    del bad["truth"]
    with pytest.raises(catalog.CatalogError) as info:
        catalog.load(write(tmp_path, bad))
    assert "missing field 'truth'" in str(info.value) and "bad verdict 'maybe'" in str(info.value)


def test_a_differs_from_note_loads_as_pairs(tmp_path):
    other = {**GOOD, "id": "tensors.reshape-may-copy"}
    (tmp_path / "tensors.toml").write_text(
        toml_entry(other) + toml_entry(GOOD).rstrip("\n") + '\ndiffers_from = { "tensors.reshape-may-copy" = "why" }\n',
        encoding="utf-8")
    claims = catalog.load(tmp_path)
    assert claims["tensors.view-shares-storage"].differs_from == (("tensors.reshape-may-copy", "why"),)
    assert claims["tensors.view-shares-storage"].differs_reason("tensors.reshape-may-copy") == "why"
    assert claims["tensors.reshape-may-copy"].differs_from == ()


@pytest.mark.parametrize("note, message", [
    ('{ "tensors.view-shares-storag" = "why" }', r"differs_from names no claim 'tensors.view-shares-storag'; "
                                                  r"did you mean 'tensors.view-shares-storage'\?"),
    ('{ "tensors.view-shares-storage" = "why" }', "differs_from names the claim itself"),
    ('{ "not an id" = "why" }', "differs_from key 'not an id' is not a claim id"),
    ('{ "tensors.view-shares-storage" = "" }', r"needs the reason as a non-empty string"),
    ('["tensors.view-shares-storage"]', "differs_from must be a table"),
])
def test_a_bad_differs_from_note_is_reported(tmp_path, note, message):
    (tmp_path / "tensors.toml").write_text(toml_entry(GOOD).rstrip("\n") + f"\ndiffers_from = {note}\n",
                                           encoding="utf-8")
    with pytest.raises(catalog.CatalogError, match=message):
        catalog.load(tmp_path)


def test_a_parsed_catalog_file_is_never_read_stale_from_the_cache(tmp_path, monkeypatch):
    """Material: none (tooling).  True: the JSON kept for a catalog file is keyed by its size and
    modification time, so an edited file is parsed again."""
    monkeypatch.setattr(catalog, "CLAIMS_DIR", tmp_path)
    monkeypatch.setattr(catalog, "PARSED", tmp_path / "cache")
    path = tmp_path / "topic.toml"
    path.write_text('[[claim]]\nid = "a.b"\n', encoding="utf-8")
    assert catalog.parse_toml(path) == {"claim": [{"id": "a.b"}]}
    assert [p.name.split("-")[0] for p in (tmp_path / "cache").iterdir()] == ["topic"]
    assert catalog.parse_toml(path) == {"claim": [{"id": "a.b"}]}   # from the cache now
    path.write_text('[[claim]]\nid = "a.bc"\n', encoding="utf-8")
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1))
    assert catalog.parse_toml(path) == {"claim": [{"id": "a.bc"}]}
    assert len(list((tmp_path / "cache").iterdir())) == 1   # the earlier version is gone
