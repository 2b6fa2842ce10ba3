"""Numerics, binary cross-entropy: BCEWithLogitsLoss against sigmoid + BCELoss, and pos_weight (issue #41, tutorials)."""
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F


@pytest.mark.claim("numerics.bce-with-logits-is-sigmoid-bce")
def test_bce_with_logits_equals_sigmoid_then_bce_and_stays_exact_for_large_logits():
    """Tutorials: BCEWithLogitsLoss(x) = BCELoss(sigmoid(x)), in one more stable step.
    True: equal for moderate logits; at x = -200 with target 1 BCELoss caps the loss at 100 and its gradient is 0,
    while BCEWithLogitsLoss gives 200 and gradient -1."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(3, 4, generator=g) * 3
    t = torch.randint(0, 2, (3, 4), generator=g).float()
    assert torch.isclose(nn.BCEWithLogitsLoss()(x, t), nn.BCELoss()(torch.sigmoid(x), t))
    z = torch.tensor([-200.0], requires_grad=True)
    logits_loss = F.binary_cross_entropy_with_logits(z, torch.ones(1))
    logits_loss.backward()
    assert torch.isclose(logits_loss, torch.tensor(200.0)) and torch.isclose(z.grad, torch.tensor([-1.0])), z.grad
    z2 = torch.tensor([-200.0], requires_grad=True)
    capped = F.binary_cross_entropy(torch.sigmoid(z2), torch.ones(1))
    capped.backward()
    assert capped.item() == 100.0 and z2.grad.item() == 0.0, f"sigmoid+BCELoss: {capped.item()}, grad {z2.grad}"


@pytest.mark.claim("numerics.bce-pos-weight-positive-term")
def test_pos_weight_multiplies_only_the_positive_targets_term():
    """Tutorials: pos_weight weights the positive examples, per class, to offset imbalance.
    True: the loss is -[pw * y * log s(x) + (1 - y) * log(1 - s(x))]; negatives are untouched; pw = 3 acts like 3 copies."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(5, 2, generator=g)
    t = torch.randint(0, 2, (5, 2), generator=g).float()
    pw = torch.tensor([3.0, 0.5])
    by_hand = -(pw * t * F.logsigmoid(x) + (1 - t) * F.logsigmoid(-x))
    got = F.binary_cross_entropy_with_logits(x, t, pos_weight=pw, reduction="none")
    assert torch.allclose(got, by_hand), (got, by_hand)
    plain = F.binary_cross_entropy_with_logits(x, t, reduction="none")
    assert torch.allclose(got[t == 0], plain[t == 0]), "negatives should not change"
    one = torch.tensor([0.3])
    tripled = F.binary_cross_entropy_with_logits(one, torch.ones(1), pos_weight=torch.tensor([3.0]), reduction="sum")
    copies = F.binary_cross_entropy_with_logits(one.repeat(3), torch.ones(3), reduction="sum")
    assert torch.isclose(tripled, copies), (tripled, copies)


@pytest.mark.claim("numerics.bce-weight-elementwise-plain-mean")
def test_bce_weight_multiplies_each_element_and_mean_still_divides_by_all_elements():
    """Tutorials: weight rescales each sample's loss; a 0 masks a sample out.
    True: weight broadcasts against the input ((N, 1) per sample, (C,) per class) and multiplies each element;
    'mean' still divides by every element, the masked ones included."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 3, generator=g)
    t = torch.randint(0, 2, (4, 3), generator=g).float()
    plain = F.binary_cross_entropy_with_logits(x, t, reduction="none")
    mask = torch.tensor([[1.0], [0.0], [1.0], [1.0]])
    assert torch.allclose(F.binary_cross_entropy_with_logits(x, t, weight=mask, reduction="none"), plain * mask)
    per_class = torch.tensor([1.0, 2.0, 3.0])
    assert torch.allclose(F.binary_cross_entropy_with_logits(x, t, weight=per_class, reduction="none"), plain * per_class)
    masked_mean = F.binary_cross_entropy_with_logits(x, t, weight=mask)
    assert torch.isclose(masked_mean, (plain * mask).sum() / 12), f"{masked_mean} is not sum / 12 elements"
    assert not torch.isclose(masked_mean, (plain * mask).sum() / 9), "mean does not skip the masked elements"


@pytest.mark.claim("numerics.bce-input-must-be-probabilities")
def test_bce_loss_refuses_inputs_outside_zero_one():
    """Tutorials: BCELoss assumes its inputs are probabilities in [0, 1], so a sigmoid must come first.
    True: an input of 1.5 or -0.1 raises RuntimeError; 0 and 1 themselves are accepted (log clamped at -100)."""
    t = torch.ones(1)
    for bad in (1.5, -0.1):
        with pytest.raises(RuntimeError, match="between 0 and 1"):
            F.binary_cross_entropy(torch.tensor([bad]), t)
    assert F.binary_cross_entropy(torch.tensor([0.0]), t).item() == 100.0
    assert F.binary_cross_entropy(torch.tensor([1.0]), t).item() == 0.0
