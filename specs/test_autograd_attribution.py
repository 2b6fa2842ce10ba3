"""Autograd: explaining a model with captum's Integrated Gradients, as the material shows it.

Source: 002 §6.3 (IntegratedGradients(model).attribute(input_tensor, target=0, n_steps=50), then
visualization.visualize_image_attr_multiple for the original image and a heat map).  Checked on
tiny CPU models: the attributions against what torch computes (the model's outputs and weights),
the drawing call on an Agg figure (``use_pyplot=False``, so no pyplot state is left behind).

Marked slow (``--full``): the tests take 0.15 s, but importing captum and the matplotlib it draws
with costs about 0.5 s of CPU, a twentieth of the learner's quick run (docs/measurements.md); the
import waits for the first test that runs, so the quick run never pays it.
"""
import pytest
import torch
from torch import nn

from torchclaims.optional import need

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def IntegratedGradients():
    need("matplotlib")
    return need("captum.attr").IntegratedGradients


@pytest.fixture(scope="module")
def viz():
    need("matplotlib")
    return need("captum.attr").visualization


def _cnn():
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Linear(4, 10)).eval()


def _image():
    torch.manual_seed(1)
    return torch.rand(1, 3, 32, 32)


@pytest.mark.claim("autograd.captum-integrated-gradients")
def test_integrated_gradients_are_complete_on_a_small_cnn(IntegratedGradients):
    """Material: IntegratedGradients(model).attribute(x, target=0, n_steps=50) attributes the
    prediction to the pixels.  True: one attribution per input value, summing to
    F(x)[0] - F(baseline)[0] (completeness), with a small convergence delta."""
    model, x = _cnn(), _image()
    attr, delta = IntegratedGradients(model).attribute(x, target=0, n_steps=50, return_convergence_delta=True)
    assert attr.shape == x.shape, f"attributions {tuple(attr.shape)} for an input {tuple(x.shape)}"
    with torch.no_grad():
        gap = model(x)[0, 0] - model(torch.zeros_like(x))[0, 0]
    torch.testing.assert_close(attr.sum(), gap, rtol=1e-2, atol=1e-4,
                               msg="sum of IG attributions vs F(x) - F(0) for target 0")
    assert delta.abs().item() < 1e-3, f"convergence delta {delta.item():.2e} at n_steps=50"
    assert not attr.requires_grad


@pytest.mark.claim("autograd.captum-integrated-gradients")
def test_integrated_gradients_of_a_linear_model_are_input_times_weight(IntegratedGradients):
    """True: for f(x) = W x + b the path integral is exact: attribution = (x - 0) * W[target]."""
    torch.manual_seed(0)
    model = nn.Linear(6, 3).double()
    x = torch.randn(2, 6, dtype=torch.float64)
    attr = IntegratedGradients(model).attribute(x, target=2, n_steps=50)
    torch.testing.assert_close(attr, x * model.weight[2].detach(),
                               msg="IG of a linear model vs x * weight[target]")


@pytest.mark.claim("autograd.captum-integrated-gradients")
def test_image_visualizer_draws_hwc_arrays(IntegratedGradients, viz):
    """True: visualize_image_attr_multiple draws the original image and a heat map from
    (H, W, C) arrays, i.e. after permute(1, 2, 0)."""
    model, x = _cnn(), _image()
    attr = IntegratedGradients(model).attribute(x, target=0, n_steps=50)
    fig, axes = viz.visualize_image_attr_multiple(
        attr.squeeze(0).permute(1, 2, 0).detach().numpy(), x.squeeze(0).permute(1, 2, 0).numpy(),
        ["original_image", "heat_map"], ["all", "absolute_value"], show_colorbar=True, outlier_perc=2,
        use_pyplot=False)
    assert len(axes) == 2 and all(ax.images for ax in axes), "expected two panels, each with an image"


@pytest.mark.claim("autograd.captum-integrated-gradients")
def test_image_visualizer_refuses_channels_first_arrays(IntegratedGradients, viz):
    """Material: pass attr.squeeze() and input_tensor.squeeze() (channels first) to the visualizer.
    True: squeeze keeps (3, H, W), and matplotlib refuses that shape for image data."""
    model, x = _cnn(), _image()
    attr = IntegratedGradients(model).attribute(x, target=0, n_steps=50)
    assert attr.squeeze().shape == x.squeeze().shape == (3, 32, 32), (
        f"squeezed shapes {tuple(attr.squeeze().shape)}, {tuple(x.squeeze().shape)}; expected channels first (3, 32, 32)")
    with pytest.raises(TypeError, match=r"Invalid shape \(3, 32, 32\) for image data"):
        viz.visualize_image_attr_multiple(
            attr.squeeze().detach().numpy(), x.squeeze().numpy(), ["original_image", "heat_map"],
            ["all", "absolute_value"], show_colorbar=True, outlier_perc=2, use_pyplot=False)


@pytest.mark.claim("autograd.captum-integrated-gradients", as_written=True,
                   raises=TypeError, match="Invalid shape")
def test_as_written_visualize_the_squeezed_tensors(IntegratedGradients, viz):
    """Material: viz.visualize_image_attr_multiple(attr.squeeze().cpu().detach().numpy(),
    input_tensor.squeeze().cpu().numpy(), ...) draws the original image and the heat map."""
    model, input_tensor = _cnn(), _image()
    attr = IntegratedGradients(model).attribute(input_tensor, target=0, n_steps=50)
    viz.visualize_image_attr_multiple(
        attr.squeeze().cpu().detach().numpy(), input_tensor.squeeze().cpu().numpy(),
        ["original_image", "heat_map"], ["all", "absolute_value"], show_colorbar=True, outlier_perc=2,
        use_pyplot=False)
