"""Version ranges: the helper that version-dependent specs and catalog entries use."""
import pytest

from torchclaims import catalog
from torchclaims.versions import in_range, parse


@pytest.mark.parametrize("version, spec, expected", [
    ("2.14.1+cu130", ">=2.6", True),
    ("2.5.1", ">=2.6", False),
    ("2.6.0", ">=2.6", True),
    ("2.9.1", ">=2.6,<2.10", True),
    ("2.10.0", ">=2.6,<2.10", False),
    ("2.0.0a0+git", "<2.0", False),
    ("2.4", "==2.4.0", True),
])
def test_in_range(version, spec, expected):
    assert in_range(spec, version) is expected, f"in_range({spec!r}, {version!r}) should be {expected}"


@pytest.mark.parametrize("bad", ["~2.6", ">= two", "2.6"])
def test_a_bad_range_is_refused(bad):
    with pytest.raises(ValueError):
        in_range(bad, "2.14.1")


def test_parse_pads_and_drops_local_tags():
    assert parse("2.14.1+cu130") == (2, 14, 1) and parse("2.6") == (2, 6, 0)


def test_every_catalogued_version_range_parses():
    for claim in catalog.load().values():
        if claim.versions:
            in_range(claim.versions, "2.14.1")  # raises on a malformed range
