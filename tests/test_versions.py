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


def test_parse_drops_local_tags_and_pre_releases():
    assert parse("2.14.1+cu130") == parse("2.14.1") == parse("2.14.1.dev20260101")
    assert parse("2.6") == parse("2.6.0") < parse("2.10.0"), "versions compare as releases, not strings"


def test_a_nightly_counts_as_its_release():
    assert in_range(">=2.6", "2.6.0a0+git1234"), "a pre-release of 2.6 is in >=2.6"


def test_every_catalogued_version_range_parses():
    for claim in catalog.load().values():
        if claim.versions:
            in_range(claim.versions, "2.14.1")  # raises on a malformed range
