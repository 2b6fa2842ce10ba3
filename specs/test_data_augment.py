"""Data: torchvision augmentation and conversion as tutorials describe them — Resize with an int
or a pair, RandomHorizontalFlip's p, RandomCrop/CenterCrop, ColorJitter's ranges, Normalize's
(0.5, 0.5) arithmetic and its inplace flag, and v2.ToDtype's scale.

Sources: the tutorials of claims/survey/data.toml (issue #41).  Synthetic images only.
"""
import numpy as np
import pytest
import torch

from torchclaims.optional import need

torchvision = need("torchvision")
from PIL import Image  # torchvision depends on Pillow
from torchvision import transforms
from torchvision.transforms import v2


def _pil(h=20, w=40, seed=0):
    return Image.fromarray(np.random.default_rng(seed).integers(0, 256, size=(h, w, 3), dtype=np.uint8))


# --- Resize ---------------------------------------------------------------------------------

@pytest.mark.claim("data.resize-int-matches-shorter-edge")
@pytest.mark.parametrize("h, w, want_hw", [(20, 40, (10, 20)), (40, 20, (20, 10)), (30, 30, (10, 10))])
def test_resize_int_scales_the_shorter_edge_and_keeps_the_aspect_ratio(h, w, want_hw):
    """Tutorials: Resize(n) matches the shorter edge to n, keeping the aspect ratio.
    True: a 20x40 image becomes 10x20 under Resize(10), for PIL images and tensors alike."""
    out = transforms.Resize(10)(_pil(h, w))
    assert (out.height, out.width) == want_hw, f"Resize(10) of {h}x{w} gave {out.height}x{out.width}, expected {want_hw}"
    tensor = transforms.Resize(10)(torch.rand(3, h, w))
    assert tuple(tensor.shape[-2:]) == want_hw, f"tensor Resize(10) gave {tuple(tensor.shape)}"


@pytest.mark.claim("data.resize-int-matches-shorter-edge")
def test_resize_pair_is_height_then_width_and_ignores_the_aspect_ratio():
    """Tutorials: Resize((h, w)) gives exactly that size.
    True: the pair is (height, width); a 20x40 image becomes 30x12, the ratio is not kept."""
    out = transforms.Resize((30, 12))(_pil(20, 40))
    assert (out.height, out.width) == (30, 12), f"Resize((30, 12)) gave {out.height}x{out.width}"
    assert out.size == (12, 30), f"PIL's size is (width, height): {out.size}"


# --- RandomHorizontalFlip ---------------------------------------------------------------------

@pytest.mark.claim("data.random-horizontal-flip-half")
def test_random_horizontal_flip_defaults_to_p_one_half():
    """Tutorials: RandomHorizontalFlip flips with probability 0.5.
    True: p defaults to 0.5 and about half of 2000 seeded draws flip."""
    flip = transforms.RandomHorizontalFlip()
    assert flip.p == 0.5, f"default p = {flip.p}"
    image = torch.arange(6.0).view(1, 2, 3)
    torch.manual_seed(0)
    flipped = sum(bool(torch.equal(flip(image), image.flip(-1))) for _ in range(2000))
    assert 900 <= flipped <= 1100, f"{flipped}/2000 flips with the default p, expected about 1000"


@pytest.mark.claim("data.random-horizontal-flip-half")
def test_random_horizontal_flip_p_one_always_and_p_zero_never():
    """Tutorials: p sets the flip probability.
    True: p=1 always mirrors the width axis, p=0 never does."""
    image = torch.arange(6.0).view(1, 2, 3)
    assert all(torch.equal(transforms.RandomHorizontalFlip(p=1.0)(image), image.flip(-1)) for _ in range(20))
    assert all(torch.equal(transforms.RandomHorizontalFlip(p=0.0)(image), image) for _ in range(20))


# --- RandomCrop / CenterCrop -------------------------------------------------------------------

@pytest.mark.claim("data.random-crop-padding-position")
def test_center_crop_takes_the_middle_window():
    """Tutorials: CenterCrop cuts the middle of the image.
    True: CenterCrop(2) of a 4x4 grid keeps rows and columns 1..2."""
    grid = torch.arange(16.0).view(1, 4, 4)
    torch.testing.assert_close(transforms.CenterCrop(2)(grid), grid[:, 1:3, 1:3])


@pytest.mark.claim("data.random-crop-padding-position")
def test_random_crop_draws_a_new_position_each_call():
    """Tutorials: RandomCrop cuts at a random position.
    True: over 50 seeded calls on a 10x10 grid, several different top-left corners come out."""
    grid = torch.arange(100.0).view(1, 10, 10)
    crop = transforms.RandomCrop(4)
    torch.manual_seed(0)
    corners = {crop(grid)[0, 0, 0].item() for _ in range(50)}
    assert len(corners) > 5, f"only {len(corners)} distinct crop corners in 50 calls"


@pytest.mark.claim("data.random-crop-padding-position")
def test_random_crop_with_padding_pads_first_then_crops_back_to_size():
    """Tutorials: RandomCrop(32, padding=4) pads 4 pixels and crops 32x32 again.
    True: the output is 32x32 and some crops include the zero padding."""
    image = torch.ones(3, 32, 32)
    crop = transforms.RandomCrop(32, padding=4)
    torch.manual_seed(0)
    outs = [crop(image) for _ in range(20)]
    assert all(tuple(o.shape) == (3, 32, 32) for o in outs), f"shapes {[tuple(o.shape) for o in outs[:3]]}"
    assert any((o == 0).any() for o in outs), "no crop reached into the zero padding"


# --- ColorJitter ------------------------------------------------------------------------------

@pytest.mark.claim("data.colorjitter-factor-range")
def test_colorjitter_turns_a_number_into_a_factor_range():
    """Tutorials: ColorJitter(brightness=0.2, ...) randomly changes brightness, contrast, saturation, hue.
    True: b becomes a factor range [1-b, 1+b]; hue h becomes [-h, h] and must lie within 0.5."""
    jitter = transforms.ColorJitter(brightness=0.2, contrast=0.5, saturation=0.3, hue=0.1)
    assert jitter.brightness == pytest.approx((0.8, 1.2)), f"brightness range {jitter.brightness}"
    assert jitter.contrast == pytest.approx((0.5, 1.5)) and jitter.saturation == pytest.approx((0.7, 1.3))
    assert jitter.hue == pytest.approx((-0.1, 0.1)), f"hue range {jitter.hue}"
    with pytest.raises(ValueError, match="hue values should be between"):
        transforms.ColorJitter(hue=0.6)


@pytest.mark.claim("data.colorjitter-factor-range")
def test_colorjitter_brightness_scales_pixels_by_a_factor_drawn_in_the_range():
    """Tutorials: brightness jitter makes the image brighter or darker at random.
    True: each call multiplies a float image by one factor in [0.8, 1.2]; the factor varies."""
    image = torch.full((3, 4, 4), 0.5)
    jitter = transforms.ColorJitter(brightness=0.2)
    torch.manual_seed(0)
    factors = [jitter(image).mean().item() / 0.5 for _ in range(200)]
    assert min(factors) >= 0.8 - 1e-6 and max(factors) <= 1.2 + 1e-6, f"factors in [{min(factors)}, {max(factors)}]"
    assert max(factors) - min(factors) > 0.3, f"factors barely vary: [{min(factors)}, {max(factors)}]"


# --- Normalize ----------------------------------------------------------------------------

@pytest.mark.claim("data.normalize-half-to-minus-one-one")
def test_normalize_half_half_maps_zero_one_to_minus_one_one():
    """Tutorials: Normalize(0.5, 0.5) after ToTensor turns [0, 1] into [-1, 1].
    True: (x - 0.5) / 0.5 sends 0 -> -1, 0.5 -> 0, 1 -> 1 per channel."""
    x = torch.tensor([0.0, 0.25, 0.5, 1.0]).view(1, 1, 4).expand(3, 1, 4).clone()
    out = transforms.Normalize([0.5] * 3, [0.5] * 3)(x)
    torch.testing.assert_close(out[0, 0], torch.tensor([-1.0, -0.5, 0.0, 1.0]))
    pixels = transforms.ToTensor()(_pil(8, 8))
    normed = transforms.Normalize([0.5] * 3, [0.5] * 3)(pixels)
    assert normed.min() >= -1.0 and normed.max() <= 1.0, f"range [{normed.min()}, {normed.max()}]"


@pytest.mark.claim("data.normalize-not-inplace")
def test_normalize_returns_a_new_tensor_unless_inplace_true():
    """Tutorials: Normalize is not in place by default.
    True: inplace=False leaves the input untouched; inplace=True writes into it and returns it."""
    x = torch.rand(3, 4, 4)
    before = x.clone()
    out = transforms.Normalize([0.5] * 3, [0.5] * 3)(x)
    torch.testing.assert_close(x, before)
    assert out.data_ptr() != x.data_ptr(), "the default Normalize returned its input's memory"
    same = transforms.Normalize([0.5] * 3, [0.5] * 3, inplace=True)(x)
    assert same.data_ptr() == x.data_ptr(), "inplace=True returned new memory"
    torch.testing.assert_close(x, (before - 0.5) / 0.5)


# --- v2.ToDtype ---------------------------------------------------------------------------------

@pytest.mark.needs_torch(">=2.1", reason="transforms.v2.ToImage and ToDtype(scale=True) appeared in torchvision 0.16, which needs torch 2.1")
@pytest.mark.claim("data.v2-todtype-scale")
def test_v2_to_image_and_to_dtype_scaled_replace_totensor():
    """Tutorials: v2.ToImage() + v2.ToDtype(torch.float32, scale=True) replaces ToTensor.
    True: the same CHW float32 values in [0, 1] as ToTensor for a PIL image."""
    image = _pil(6, 8)
    out = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])(image)
    assert out.dtype == torch.float32 and tuple(out.shape) == (3, 6, 8), f"{out.dtype} {tuple(out.shape)}"
    torch.testing.assert_close(out.as_subclass(torch.Tensor), transforms.ToTensor()(image))


@pytest.mark.needs_torch(">=2.1", reason="transforms.v2.ToImage and ToDtype(scale=True) appeared in torchvision 0.16, which needs torch 2.1")
@pytest.mark.claim("data.v2-todtype-scale")
def test_v2_to_dtype_without_scale_only_casts():
    """Tutorials: scale=True is what divides by 255.
    True: scale defaults to False, and then 255 stays 255.0."""
    u = v2.ToImage()(torch.full((3, 2, 2), 255, dtype=torch.uint8))
    assert v2.ToDtype(torch.float32)(u).max().item() == 255.0, "ToDtype without scale rescaled the pixels"
    assert v2.ToDtype(torch.float32, scale=True)(u).max().item() == 1.0, "scale=True did not map 255 to 1.0"


# --- Compose, RandomResizedCrop, RandomGrayscale ----------------------------------------------

@pytest.mark.claim("data.compose-applies-in-order")
def test_compose_calls_its_transforms_first_to_last():
    """Tutorials: Compose chains transforms in the order of its list.
    True: Compose([f, g])(x) is g(f(x)); the reversed list gives another result."""
    calls = []

    def tag(name, fn):
        return lambda x: (calls.append(name), fn(x))[1]

    f, g = tag("f", lambda x: x + 1), tag("g", lambda x: x * 10)
    assert transforms.Compose([f, g])(1) == 20 and calls == ["f", "g"], f"result/order {calls}"
    assert transforms.Compose([g, f])(1) == 11


@pytest.mark.claim("data.compose-applies-in-order")
def test_compose_with_normalize_before_totensor_fails_on_a_pil_image():
    """Tutorials: PIL-side transforms go before ToTensor, Normalize after it.
    True: Normalize first meets the PIL image and raises TypeError; ToTensor first works."""
    image = _pil(4, 4)
    with pytest.raises(TypeError, match="Tensor"):
        transforms.Compose([transforms.Normalize([0.5] * 3, [0.5] * 3), transforms.ToTensor()])(image)
    out = transforms.Compose([transforms.ToTensor(), transforms.Normalize([0.5] * 3, [0.5] * 3)])(image)
    assert tuple(out.shape) == (3, 4, 4), f"shape {tuple(out.shape)}"


@pytest.mark.claim("data.random-resized-crop-scale-ratio")
def test_random_resized_crop_defaults_and_output_size():
    """Tutorials: RandomResizedCrop crops a random area and aspect ratio, then resizes to the given size.
    True: scale defaults to (0.08, 1.0) and ratio to (3/4, 4/3); the output is always size x size."""
    crop = transforms.RandomResizedCrop(8)
    assert crop.scale == (0.08, 1.0) and crop.ratio == pytest.approx((0.75, 4 / 3)), f"{crop.scale} {crop.ratio}"
    torch.manual_seed(0)
    outs = [crop(torch.rand(3, 40, 30)) for _ in range(10)]
    assert all(tuple(o.shape) == (3, 8, 8) for o in outs), f"shapes {[tuple(o.shape) for o in outs[:3]]}"


@pytest.mark.claim("data.random-resized-crop-scale-ratio")
def test_random_resized_crop_boxes_vary_within_the_area_range():
    """Tutorials: the crop's size and shape are random.
    True: over 50 seeded draws the boxes differ, and each covers 8% to 100% of a 100x100 image."""
    torch.manual_seed(0)
    boxes = [transforms.RandomResizedCrop.get_params(torch.rand(1, 100, 100), [0.08, 1.0], [3 / 4, 4 / 3])
             for _ in range(50)]
    sizes = {(h, w) for _, _, h, w in boxes}
    assert len(sizes) > 10, f"only {len(sizes)} distinct crop sizes in 50 draws"
    assert all(0.08 * 10000 - 200 <= h * w <= 10000 for _, _, h, w in boxes), "a crop area left [8%, 100%]"


@pytest.mark.claim("data.random-grayscale-keeps-channels")
def test_random_grayscale_defaults_to_p_one_tenth():
    """Tutorials: RandomGrayscale turns the image grey with some probability.
    True: p defaults to 0.1, and about a tenth of 2000 seeded calls go grey."""
    gray = transforms.RandomGrayscale()
    assert gray.p == 0.1, f"default p = {gray.p}"
    image = torch.rand(3, 2, 2)
    torch.manual_seed(0)
    greyed = sum(bool(torch.equal(out[0], out[1])) for out in (gray(image) for _ in range(2000)))
    assert 140 <= greyed <= 260, f"{greyed}/2000 grey outputs, expected about 200"


@pytest.mark.claim("data.random-grayscale-keeps-channels")
def test_random_grayscale_keeps_three_channels():
    """Tutorials: RandomGrayscale converts to a grayscale image.
    True: the output keeps the input's channel count: an RGB PIL image, or three equal tensor channels."""
    out = transforms.RandomGrayscale(p=1.0)(_pil(4, 6))
    assert out.mode == "RGB", f"PIL mode {out.mode}, expected RGB"
    t = transforms.RandomGrayscale(p=1.0)(torch.rand(3, 4, 4))
    assert tuple(t.shape) == (3, 4, 4) and torch.equal(t[0], t[1]) and torch.equal(t[1], t[2]), \
        "grey tensor should keep 3 equal channels"


# --- FiveCrop, transforms as callables ----------------------------------------------------------

@pytest.mark.claim("data.fivecrop-corners-and-center")
def test_fivecrop_returns_the_four_corners_then_the_center():
    """Tutorials: FiveCrop cuts the four corners and the centre.
    True: a tuple of five crops: top-left, top-right, bottom-left, bottom-right, centre."""
    grid = torch.arange(16.0).view(1, 4, 4)
    crops = transforms.FiveCrop(2)(grid)
    assert isinstance(crops, tuple) and len(crops) == 5, f"FiveCrop gave {type(crops).__name__} of {len(crops)}"
    want = [grid[:, :2, :2], grid[:, :2, 2:], grid[:, 2:, :2], grid[:, 2:, 2:], grid[:, 1:3, 1:3]]
    for got, expected in zip(crops, want):
        torch.testing.assert_close(got, expected)


@pytest.mark.claim("data.transforms-are-callables")
def test_tensor_transforms_are_modules_whose_call_runs_forward():
    """Tutorials: a transform is a class with __call__, so its instance is called like a function.
    True: Resize, Normalize and RandomHorizontalFlip are nn.Module subclasses: calling runs forward."""
    norm = transforms.Normalize([0.5], [0.5])
    assert all(isinstance(t, torch.nn.Module) for t in
               (norm, transforms.Resize(2), transforms.RandomHorizontalFlip())), "tensor transforms should be Modules"
    x = torch.rand(1, 4, 4)
    torch.testing.assert_close(norm(x), (x - 0.5) / 0.5)
    torch.testing.assert_close(norm(x), norm.forward(x))
    seq = torch.nn.Sequential(transforms.Resize(2), norm)
    assert tuple(seq(x).shape) == (1, 2, 2), "tensor transforms should chain inside nn.Sequential"


@pytest.mark.claim("data.transforms-are-callables")
def test_totensor_and_compose_are_plain_classes_defining_call():
    """Tutorials: transforms implement __call__.
    True: ToTensor and Compose are not Modules; each defines __call__ itself."""
    for cls in (transforms.ToTensor, transforms.Compose):
        assert not issubclass(cls, torch.nn.Module), f"{cls.__name__} is an nn.Module"
        assert "__call__" in vars(cls), f"{cls.__name__} does not define __call__"
    out = transforms.Compose([transforms.ToTensor()])(_pil(2, 3))
    assert tuple(out.shape) == (3, 2, 3), f"Compose([ToTensor()]) gave {tuple(out.shape)}"
