"""Data: torchvision transforms — ToTensor, Normalize and the CIFAR-10 constants, the order
of augmentation and conversion, denormalizing for display, separate train/val pipelines.

Sources: 002 §2.2, §2.3, §4.2; 003 §2.2, §4.2, §5.2; 004 §5.4.  Nothing is downloaded:
statistics are checked on synthetic images; the published CIFAR-10 statistics are cited
in claims/data.toml, not recomputed.
"""
import numpy as np
import pytest
import torch

from torchclaims.optional import need

torchvision = need("torchvision")
from PIL import Image  # torchvision depends on Pillow
from torchvision import transforms
from torchvision.transforms import v2

MATERIAL_MEAN = (0.4914, 0.4822, 0.4465)
MATERIAL_STD = (0.2023, 0.1994, 0.2010)
# Per-channel statistics of the CIFAR-10 training set as published (kuangliu/pytorch-cifar#19,
# MadryLab/robustness#70): pixel mean and std over all 50000 images, divided by 255.
PUBLISHED_MEAN = (0.49139968, 0.48215841, 0.44653091)
PUBLISHED_STD = (0.24703223, 0.24348513, 0.26158784)


def _image_array(h=4, w=5, seed=0):
    return np.random.default_rng(seed).integers(0, 256, size=(h, w, 3), dtype=np.uint8)


def _channel_stats(x):
    """Mean and std per channel of a (N, C, H, W) batch."""
    return x.mean(dim=(0, 2, 3)), x.std(dim=(0, 2, 3))


# --- ToTensor ------------------------------------------------------------------------------

@pytest.mark.claim("data.totensor-range-dtype-layout")
@pytest.mark.parametrize("kind", ["pil-rgb", "pil-gray", "uint8-hwc", "uint8-hwc-noncontiguous", "uint8-1x1"])
def test_totensor_gives_float32_chw_pixels_divided_by_255(kind):
    """Material: ToTensor: PIL -> float32 in [0, 1], HWC -> CHW.
    True: for PIL and uint8 input, out == array.transpose(2, 0, 1) / 255 as float32."""
    array = _image_array(6, 8)
    if kind == "pil-rgb":
        source, expected = Image.fromarray(array), array
    elif kind == "pil-gray":
        expected = array[:, :, :1]
        source = Image.fromarray(expected[:, :, 0], mode="L")
    elif kind == "uint8-hwc":
        source = expected = array
    elif kind == "uint8-hwc-noncontiguous":
        source = expected = array[:, ::2]
    else:
        source = expected = array[:1, :1]
    out = transforms.ToTensor()(source)
    want = torch.from_numpy(np.ascontiguousarray(expected.transpose(2, 0, 1))).float() / 255
    assert out.dtype == torch.float32, f"ToTensor gave {out.dtype}, expected float32 [{kind}]"
    assert out.shape == want.shape, f"ToTensor shape {tuple(out.shape)}, expected {tuple(want.shape)} [{kind}]"
    torch.testing.assert_close(out, want)
    assert 0.0 <= out.min() and out.max() <= 1.0


def _black_and_white():
    array = np.zeros((2, 2, 3), dtype=np.uint8)
    array[0] = 255
    return array


@pytest.mark.claim("data.totensor-range-dtype-layout")
def test_totensor_maps_0_to_0_and_255_to_1():
    """Material: ToTensor yields [0, 1] float32.  True: 0 -> 0.0, 255 -> 1.0."""
    out = transforms.ToTensor()(Image.fromarray(_black_and_white()))
    assert out[:, 0].unique().tolist() == [1.0] and out[:, 1].unique().tolist() == [0.0]


@pytest.mark.claim("data.totensor-range-dtype-layout")
@pytest.mark.needs_torch(">=2.1", reason="transforms.v2.ToImage and ToDtype(scale=True) appeared in torchvision 0.16, which needs torch 2.1")
def test_totensor_matches_v2_to_image_and_to_dtype_scaled():
    """Material: ToTensor yields [0, 1] float32.
    True: v2.ToImage + ToDtype(float32, scale=True) gives the same as ToTensor."""
    array = _black_and_white()
    out = transforms.ToTensor()(Image.fromarray(array))
    pipeline = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])
    torch.testing.assert_close(pipeline(Image.fromarray(array)).as_subclass(torch.Tensor), out)


@pytest.mark.claim("data.totensor-divides-uint8-only")
def test_totensor_scales_uint8_but_passes_float_arrays_through():
    """Material: ToTensor divides by 255, so keeping memmap images uint8 is safe.
    True: uint8 is scaled; a float64 array keeps its dtype and its 0..255 values."""
    array = _image_array()
    torch.testing.assert_close(transforms.ToTensor()(array).max(), torch.tensor(array.max() / 255, dtype=torch.float32))
    as_float = transforms.ToTensor()(array.astype(np.float64))
    assert as_float.dtype == torch.float64, f"float64 input became {as_float.dtype}"
    torch.testing.assert_close(as_float, torch.from_numpy(array.transpose(2, 0, 1).astype(np.float64)))
    for dtype in (np.int16, np.int32, np.float32):  # other arrays: transposed, never rescaled
        out = transforms.ToTensor()(array.astype(dtype))
        torch.testing.assert_close(out, torch.from_numpy(array.transpose(2, 0, 1).astype(dtype)),
                                   msg=lambda m, dtype=dtype: f"ToTensor of a {dtype.__name__} array: {m}")


@pytest.mark.claim("data.totensor-divides-uint8-only")
def test_totensor_scales_8_bit_pil_modes_only():
    """Material: ToTensor divides by 255.
    True: PIL modes with 8-bit channels (L, RGB, RGBA, P) are divided, 1-bit '1' gives 0/1, while the
    32-bit modes I and F and 16-bit I;16 keep their values and dtype."""
    gray = Image.fromarray(np.full((2, 2), 200, dtype=np.uint8))
    expected = {"L": (torch.float32, {200 / 255}), "RGB": (torch.float32, {200 / 255}),
                "RGBA": (torch.float32, {200 / 255, 1.0}), "P": (torch.float32, {200 / 255}),
                "1": (torch.float32, {1.0}), "I": (torch.int32, {200}), "I;16": (torch.int16, {200}),
                "F": (torch.float32, {200.0})}
    for mode, (dtype, values) in expected.items():
        out = transforms.ToTensor()(gray.convert(mode))
        seen = {round(v, 6) for v in out.unique().tolist()}
        assert out.dtype == dtype and seen == {round(v, 6) for v in values}, (
            f"ToTensor of a PIL '{mode}' image gave {out.dtype} {sorted(seen)}, expected {dtype} {sorted(values)}")


# --- Normalize -------------------------------------------------------------------------

@pytest.mark.claim("data.normalize-zero-mean-unit-variance")
def test_normalize_computes_x_minus_mean_over_std_per_channel():
    """Material: Normalize brings data to mean 0, variance 1.
    True: it computes (x - mean[c]) / std[c] with whatever constants it is given."""
    x = torch.rand(3, 6, 7)
    out = transforms.Normalize(MATERIAL_MEAN, MATERIAL_STD)(x)
    mean, std = torch.tensor(MATERIAL_MEAN).view(3, 1, 1), torch.tensor(MATERIAL_STD).view(3, 1, 1)
    torch.testing.assert_close(out, (x - mean) / std)


@pytest.mark.claim("data.normalize-zero-mean-unit-variance")
def test_normalize_gives_unit_std_only_with_the_datas_own_std():
    """Material: Normalize brings data to mean 0, variance 1.
    True: with the data's statistics yes; with stds 18% too small the output std is ~1.22."""
    true_mean, true_std = torch.tensor(PUBLISHED_MEAN), torch.tensor(PUBLISHED_STD)
    images = true_mean.view(1, 3, 1, 1) + true_std.view(1, 3, 1, 1) * torch.randn(64, 3, 16, 16)
    own = transforms.Normalize(*[t.tolist() for t in _channel_stats(images)])(images)
    out_mean, out_std = _channel_stats(own)
    torch.testing.assert_close(out_mean, torch.zeros(3), atol=1e-5, rtol=0)
    torch.testing.assert_close(out_std, torch.ones(3), atol=1e-5, rtol=0)
    _, std_with_material = _channel_stats(transforms.Normalize(MATERIAL_MEAN, MATERIAL_STD)(images))
    torch.testing.assert_close(std_with_material, true_std / torch.tensor(MATERIAL_STD), atol=0.02, rtol=0)
    assert (std_with_material > 1.15).all(), f"std after Normalize {std_with_material.tolist()}, expected ~1.22"


@pytest.mark.claim("data.normalize-zero-mean-unit-variance", as_written=True)
def test_as_written_cifar_normalize_gives_unit_variance():
    """Material: Normalize with the CIFAR-10 constants gives variance 1 on CIFAR-like data."""
    true_mean, true_std = torch.tensor(PUBLISHED_MEAN), torch.tensor(PUBLISHED_STD)
    images = true_mean.view(1, 3, 1, 1) + true_std.view(1, 3, 1, 1) * torch.randn(64, 3, 16, 16)
    _, std = _channel_stats(transforms.Normalize(MATERIAL_MEAN, MATERIAL_STD)(images))
    torch.testing.assert_close(std, torch.ones(3), atol=0.05, rtol=0)


@pytest.mark.claim("data.cifar10-constants-official")
def test_reference_keeps_the_materials_cifar10_constants(ref):
    """Material: mean (0.4914, 0.4822, 0.4465), std (0.2023, 0.1994, 0.2010).
    True: the reference exposes exactly those numbers (their provenance is the next spec)."""
    assert tuple(ref.data.CIFAR10_MEAN) == MATERIAL_MEAN
    assert tuple(ref.data.CIFAR10_STD) == MATERIAL_STD


@pytest.mark.claim("data.cifar10-constants-official")
def test_average_per_image_std_is_below_the_pooled_std():
    """Material: the std constants are the dataset's statistics.
    True: averaging per-image stds (how such constants arise) always undershoots the pooled std."""
    brightness = torch.rand(200, 3, 1, 1) * 0.5 + 0.25  # images differ in overall level
    images = (brightness + 0.15 * torch.randn(200, 3, 12, 12)).double()
    pooled = images.transpose(0, 1).reshape(3, -1).std(dim=1, correction=0)
    per_image = images.reshape(200, 3, -1).std(dim=2, correction=0).mean(dim=0)
    assert (per_image < pooled).all(), f"mean per-image std {per_image.tolist()} >= pooled {pooled.tolist()}"
    contrast = 0.25 + torch.rand(200, 3, 1, 1) * 0.2 * torch.randn(200, 3, 12, 12)   # same mean, other spreads
    contrast = contrast.double()
    assert (contrast.reshape(200, 3, -1).std(dim=2, correction=0).mean(dim=0)
            < contrast.transpose(0, 1).reshape(3, -1).std(dim=1, correction=0)).all(), (
        "images differing only in spread: the mean per-image std did not fall below the pooled std")
    one = torch.rand(3, 144, dtype=torch.float64)   # every image the same pixels, shuffled: no gap
    alike = torch.stack([one[:, torch.randperm(144)] for _ in range(50)]).view(50, 3, 12, 12)
    torch.testing.assert_close(alike.reshape(50, 3, -1).std(dim=2, correction=0).mean(dim=0),
                               alike.transpose(0, 1).reshape(3, -1).std(dim=1, correction=0),
                               msg="images with one mean and one std: the two stds should coincide")


@pytest.mark.claim("data.cifar10-constants-official", as_written=True)
def test_as_written_averaged_per_image_std_is_the_dataset_std():
    """Material: (0.2023, 0.1994, 0.2010), an average of per-image stds, are the dataset's stds."""
    brightness = torch.rand(200, 3, 1, 1) * 0.5 + 0.25
    images = (brightness + 0.15 * torch.randn(200, 3, 12, 12)).double()
    pooled = images.transpose(0, 1).reshape(3, -1).std(dim=1, correction=0)
    per_image = images.reshape(200, 3, -1).std(dim=2, correction=0).mean(dim=0)
    torch.testing.assert_close(per_image, pooled, atol=1e-3, rtol=0,
                               msg="mean of per-image stds vs pooled std [Tensor.std over images]")


@pytest.mark.claim("data.normalize-no-default-constants")
def test_normalize_requires_mean_and_std():
    """Material: Normalize() defaults to the ImageNet mean/std.
    True: there are no defaults; Normalize() raises TypeError."""
    with pytest.raises(TypeError, match="mean"):
        transforms.Normalize()
    imagenet_mean, imagenet_std = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
    x = torch.rand(3, 8, 8)
    out = transforms.Normalize(imagenet_mean, imagenet_std)(x)
    torch.testing.assert_close(out, (x - torch.tensor(imagenet_mean).view(3, 1, 1)) / torch.tensor(imagenet_std).view(3, 1, 1),
                               msg="ImageNet constants do more than shift and scale")
    far = transforms.Normalize((0.5,), (0.01,))(torch.ones(1, 2, 2))
    assert far.unique().tolist() == [50.0], f"Normalize((0.5,), (0.01,)) of ones gave {far.unique().tolist()}, expected 50 unclipped"


@pytest.mark.claim("data.normalize-no-default-constants", as_written=True, raises=TypeError,
                   match=r"missing 2 required positional arguments: 'mean' and 'std'")
def test_as_written_normalize_defaults_to_imagenet():
    """Material: a bare Normalize() uses the ImageNet statistics."""
    norm = transforms.Normalize()
    assert list(norm.mean) == [0.485, 0.456, 0.406]


@pytest.mark.claim("data.normalize-needs-float-chw")
def test_normalize_rejects_integer_tensors():
    """Material: Normalize needs float32 (C, H, W).
    True: integer input raises TypeError ('should be a float tensor')."""
    with pytest.raises(TypeError, match="should be a float tensor"):
        transforms.Normalize(MATERIAL_MEAN, MATERIAL_STD)(torch.zeros(3, 4, 4, dtype=torch.uint8))


@pytest.mark.claim("data.normalize-needs-float-chw")
@pytest.mark.parametrize("shape", [(3, 4, 5), (2, 3, 4, 5), (2, 2, 3, 1, 1), (0, 3, 4, 5)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_normalize_accepts_any_float_dtype_and_leading_batch_dims(shape, dtype):
    """Material: Normalize needs float32 input shaped (C, H, W).
    True: float64 works (and stays float64); (..., C, H, W) batches equal per-image results."""
    x = torch.rand(shape, dtype=dtype)
    out = transforms.Normalize(MATERIAL_MEAN, MATERIAL_STD)(x)
    assert out.dtype == dtype and out.shape == x.shape, f"{out.dtype} {tuple(out.shape)} for {dtype} {shape}"
    mean = torch.tensor(MATERIAL_MEAN, dtype=dtype).view(3, 1, 1)
    std = torch.tensor(MATERIAL_STD, dtype=dtype).view(3, 1, 1)
    torch.testing.assert_close(out, (x - mean) / std)


@pytest.mark.claim("data.normalize-needs-float-chw")
def test_normalize_rejects_fewer_than_three_dims():
    """Material: (C, H, W) input.
    True: at least 3 dims; a 2-D tensor raises ValueError, a 1-D one TypeError ('not a torch image')."""
    with pytest.raises(ValueError):
        transforms.Normalize([0.5], [0.5])(torch.rand(4, 4))
    with pytest.raises(TypeError, match="not a torch image"):
        transforms.Normalize([0.5], [0.5])(torch.rand(4))


@pytest.mark.claim("data.normalize-needs-float-chw", as_written=True)
def test_as_written_normalize_refuses_a_batch():
    """Material: Normalize wants (C, H, W), so a (N, C, H, W) batch is not accepted."""
    with pytest.raises((TypeError, ValueError)):
        transforms.Normalize(MATERIAL_MEAN, MATERIAL_STD)(torch.rand(2, 3, 4, 4))


@pytest.mark.claim("data.normalize-output-range")
def test_cifar_normalized_range_is_minus_2_43_to_2_75():
    """Material: values end up in [-2.5, 2.5].
    True: for inputs in [0, 1] the extremes are -2.429 (R at 0) and 2.754 (B at 1)."""
    norm = transforms.Normalize(MATERIAL_MEAN, MATERIAL_STD)
    low, high = norm(torch.zeros(3, 1, 1)), norm(torch.ones(3, 1, 1))
    torch.testing.assert_close(low.min(), torch.tensor(-0.4914 / 0.2023))
    torch.testing.assert_close(high.max(), torch.tensor((1 - 0.4465) / 0.2010))
    assert high.flatten().argmax().item() == 2, f"the largest value is in channel {high.flatten().argmax().item()}, expected blue (2)"
    assert high.max() > 2.5, f"max normalized value {high.max():.3f}, expected above 2.5"


@pytest.mark.claim("data.normalize-output-range", as_written=True)
def test_as_written_cifar_normalized_values_stay_within_2_5():
    """Material: after Normalize with the CIFAR constants all values lie in [-2.5, 2.5]."""
    out = transforms.Normalize(MATERIAL_MEAN, MATERIAL_STD)(torch.ones(3, 2, 2))
    assert out.abs().max() <= 2.5


@pytest.mark.claim("data.denormalize-inverts")
@pytest.mark.parametrize("shape", [(3, 4, 5), (2, 3, 4, 5), (3, 1, 1), (3, 0, 4), "permuted"])
def test_denormalize_inverts_normalize(ref, shape):
    """Material: x * std + mean (then clamp) restores a displayable image.
    True: ref.data.denormalize(Normalize(x)) == x up to rounding, batches and odd layouts included."""
    x = torch.rand(4, 5, 3).permute(2, 0, 1) if shape == "permuted" else torch.rand(shape)
    normalized = transforms.Normalize(MATERIAL_MEAN, MATERIAL_STD)(x)
    restored = ref.data.denormalize(normalized, ref.data.CIFAR10_MEAN, ref.data.CIFAR10_STD)
    assert restored.shape == x.shape and restored.dtype == x.dtype
    torch.testing.assert_close(restored, x)
    torch.testing.assert_close(restored.clamp(0, 1), x, msg="clamp changed an image that started in [0, 1]")


@pytest.mark.claim("data.denormalize-inverts")
def test_materials_display_recipe_gives_an_hwc_image_in_range():
    """Material: denormalize with clamp, then permute(1, 2, 0) for display.
    True: the (H, W, C) result equals the original pixels."""
    array = _image_array(6, 7)
    x = transforms.ToTensor()(Image.fromarray(array))
    mean = torch.tensor(MATERIAL_MEAN).view(3, 1, 1)
    std = torch.tensor(MATERIAL_STD).view(3, 1, 1)
    shown = torch.clamp(transforms.Normalize(MATERIAL_MEAN, MATERIAL_STD)(x) * std + mean, 0, 1).permute(1, 2, 0)
    assert shown.shape == (6, 7, 3)
    torch.testing.assert_close(shown, torch.from_numpy(array).float() / 255)


# --- order of augmentation and conversion ----------------------------------------------

def _asymmetric_pil():
    array = np.zeros((4, 6, 3), dtype=np.uint8)
    array[:, :2] = 255  # bright left edge
    return Image.fromarray(array)


@pytest.mark.claim("data.flip-before-totensor")
def test_horizontal_flip_after_totensor_equals_flip_before():
    """Material: RandomHorizontalFlip must precede ToTensor (it works on PIL only).
    True: it flips (..., H, W) tensors too, with the same pixels as flipping the PIL image."""
    image = _asymmetric_pil()
    flip = transforms.RandomHorizontalFlip(p=1.0)
    before = transforms.ToTensor()(flip(image))
    after = flip(transforms.ToTensor()(image))
    torch.testing.assert_close(after, before)
    torch.testing.assert_close(after, transforms.ToTensor()(image).flip(-1))
    batch = torch.rand(2, 3, 4, 6)
    torch.testing.assert_close(flip(batch), batch.flip(-1))
    torch.testing.assert_close(v2.RandomHorizontalFlip(p=1.0)(transforms.ToTensor()(image)), before)
    flipped_pil = v2.RandomHorizontalFlip(p=1.0)(image)
    assert isinstance(flipped_pil, Image.Image), f"v2 flip of a PIL image gave {type(flipped_pil).__name__}"
    torch.testing.assert_close(transforms.ToTensor()(flipped_pil), before)


@pytest.mark.claim("data.flip-before-totensor")
def test_horizontal_flip_rejects_numpy_arrays():
    """Material: the flip works on PIL images.
    True: PIL or tensor; a numpy array raises TypeError when the flip fires."""
    with pytest.raises(TypeError, match="PIL Image"):
        transforms.RandomHorizontalFlip(p=1.0)(np.zeros((4, 6, 3), dtype=np.uint8))
    unflipped = transforms.RandomHorizontalFlip(p=0.0)(np.zeros((4, 6, 3), dtype=np.uint8))
    assert isinstance(unflipped, np.ndarray), "when the flip does not fire the array should pass through untouched"


@pytest.mark.claim("data.flip-before-totensor", as_written=True)
def test_as_written_flip_refuses_tensors():
    """Material: the flip only handles PIL images, so it cannot come after ToTensor."""
    with pytest.raises(TypeError):
        transforms.RandomHorizontalFlip(p=1.0)(torch.rand(3, 4, 6))


@pytest.mark.claim("data.augment-separate-val-transform")
def test_random_augmentation_varies_while_the_val_pipeline_repeats():
    """Material: keep random augmentation out of validation; val transforms are deterministic.
    True: the train pipeline gives both flipped and unflipped outputs; val gives one output."""
    image = _asymmetric_pil()
    train = transforms.Compose([transforms.RandomHorizontalFlip(), transforms.ToTensor(),
                                transforms.Normalize(MATERIAL_MEAN, MATERIAL_STD)])
    val = transforms.Compose([transforms.ToTensor(), transforms.Normalize(MATERIAL_MEAN, MATERIAL_STD)])
    train_outputs = {tuple(train(image).flatten().tolist()) for _ in range(32)}
    val_outputs = {tuple(val(image).flatten().tolist()) for _ in range(32)}
    assert len(train_outputs) == 2, f"{len(train_outputs)} distinct train outputs, expected 2 (flipped or not)"
    assert len(val_outputs) == 1, f"{len(val_outputs)} distinct validation outputs, expected 1"
