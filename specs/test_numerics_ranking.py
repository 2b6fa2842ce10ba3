"""Numerics, MarginRankingLoss: what it compares and the shape it returns (issue #41, tutorials)."""
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F


def _pairs():
    g = torch.Generator().manual_seed(0)
    x1, x2 = torch.randn(5, generator=g), torch.randn(5, generator=g)
    y = torch.tensor([1.0, -1.0, 1.0, 1.0, -1.0])
    return x1, x2, y


@pytest.mark.claim("numerics.margin-ranking-loss-elementwise")
def test_margin_ranking_loss_pairs_elements_one_to_one():
    """Tutorials: MarginRankingLoss compares two sets of scores and returns an n x n loss matrix.
    True: it pairs x1[i] with x2[i]: max(0, -y * (x1 - x2) + margin) per pair, shape (n,) unreduced, a scalar by default."""
    x1, x2, y = _pairs()
    rows = F.margin_ranking_loss(x1, x2, y, margin=0.5, reduction="none")
    assert rows.shape == (5,), f"unreduced shape {tuple(rows.shape)}, expected (5,)"
    assert torch.allclose(rows, torch.clamp(-y * (x1 - x2) + 0.5, min=0)), rows
    assert nn.MarginRankingLoss()(x1, x2, y).dim() == 0, "the default reduction gives a scalar"


@pytest.mark.claim("numerics.margin-ranking-loss-elementwise", as_written=True)
def test_as_written_margin_ranking_loss_returns_an_n_by_n_matrix():
    """As the tutorial writes it: the loss of two length-n score vectors is an n x n matrix."""
    x1, x2, y = _pairs()
    rows = F.margin_ranking_loss(x1, x2, y, reduction="none")
    assert rows.shape == (5, 5), f"MarginRankingLoss gave shape {tuple(rows.shape)}, not an n x n matrix"
