"""Modules, train and eval mode per layer: which layers compute differently after model.eval()
(issue #41, tutorials)."""
import pytest
import torch
from torch import nn


@pytest.mark.claim("modules.eval-only-dropout-bn-change")
def test_linear_conv_relu_and_pooling_give_the_same_output_in_train_and_eval():
    """Tutorials: fully connected and convolutional layers compute the same way in both modes.
    True: a Conv2d-ReLU-MaxPool-Linear model gives bit-identical outputs in train() and eval()."""
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(4 * 3 * 3, 5))
    x = torch.randn(2, 3, 8, 8)
    trained = model.train()(x)
    evaluated = model.eval()(x)
    assert torch.equal(trained, evaluated), f"max difference {(trained - evaluated).abs().max()}"


@pytest.mark.claim("modules.eval-only-dropout-bn-change")
@pytest.mark.parametrize("layer", [nn.Dropout(0.5), nn.BatchNorm1d(6)], ids=["dropout", "batchnorm"])
def test_dropout_and_batchnorm_outputs_change_with_the_mode(layer):
    """True: Dropout and BatchNorm (whose running statistics start at 0 and 1) do differ."""
    x = torch.randn(4, 6) * 3 + 2
    trained = layer.train()(x)
    evaluated = layer.eval()(x)
    assert not torch.equal(trained, evaluated), f"{type(layer).__name__} gave the same output in both modes"
