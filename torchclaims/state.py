"""The pytest plugin's state, kept in ``config.stash`` under these typed keys."""
from __future__ import annotations

import pytest

from .catalog import Claim
from .impl import Impl

CATALOG = pytest.StashKey[dict[str, Claim]]()   # claim id -> Claim
IMPL = pytest.StashKey[Impl]()                  # the implementation the specs check (the ref fixture)
