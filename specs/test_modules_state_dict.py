"""Modules, chapter 3: state dicts, loading, saving and resuming.

load_state_dict strict and non-strict (missing and unexpected keys, size mismatches, the
returned named tuple), the 'module.' prefix of DataParallel/DDP and a loader that strips
it, torch.save(model) against torch.save(state_dict), torch.load and weights_only,
checkpoints with optimizer, LR scheduler and GradScaler state, and what a resume without
optimizer state really changes.
Sources: 000 §3.3, §4.4; 002 §2.3, §4.5, §5.4, §5.5; 003 §3.3, §4.4.
"""
import io
import os
import pickle

import pytest
import torch
from packaging.version import Version
from torch import nn

from torchclaims.optional import need

# Why a spec that loads optimizer state with weights_only=True is not applicable on 1.13.
FLOATS_UNDER_WEIGHTS_ONLY = "1.13's weights-only unpickler refuses Python floats such as an optimizer's lr (2.0 accepts them)"



class Small(nn.Module):
    def __init__(self, with_fc=True):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3)
        self.bn1 = nn.BatchNorm2d(4)
        if with_fc:
            self.fc = nn.Linear(4, 2)

    def forward(self, x):
        x = self.bn1(self.conv1(x)).mean((2, 3))
        return self.fc(x) if hasattr(self, "fc") else x


def save_load(obj, weights_only):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, weights_only=weights_only)


# --- load_state_dict: strict and non-strict (headline) ----------------------------------


@pytest.mark.claim("modules.load-strict-checks-missing-and-unexpected")
def test_strict_load_raises_listing_missing_and_unexpected_keys():
    """Material: strict=True (default) checks missing and unexpected keys.
    True: RuntimeError naming both kinds; nothing is tolerated."""
    model = Small()
    state = model.state_dict()
    del state["fc.bias"]
    state["extra.weight"] = torch.zeros(1)
    with pytest.raises(RuntimeError) as info:
        model.load_state_dict(state)
    text = str(info.value)
    assert 'Missing key(s) in state_dict: "fc.bias"' in text, f"error text lacks the missing key: {text}"
    assert 'Unexpected key(s) in state_dict: "extra.weight"' in text, f"error text lacks the unexpected key: {text}"
    only_missing = model.state_dict()
    del only_missing["fc.weight"]
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "fc.weight"'):
        model.load_state_dict(only_missing)


@pytest.mark.claim("modules.load-strict-checks-missing-and-unexpected")
def test_non_strict_load_returns_incompatible_keys_named_tuple():
    """Material: strict=False tolerates mismatched keys.
    True: returns _IncompatibleKeys(missing_keys, unexpected_keys) and loads the rest."""
    source, target = Small(), Small()
    state = source.state_dict()
    del state["fc.bias"]
    state["extra.weight"] = torch.zeros(1)
    result = target.load_state_dict(state, strict=False)
    assert result.missing_keys == ["fc.bias"] and result.unexpected_keys == ["extra.weight"], (
        f"load_state_dict(strict=False) returned {result}; expected missing ['fc.bias'], "
        "unexpected ['extra.weight']")
    missing, unexpected = result  # a named tuple
    assert (missing, unexpected) == (["fc.bias"], ["extra.weight"])
    torch.testing.assert_close(target.conv1.weight, source.conv1.weight)
    clean = target.load_state_dict(source.state_dict())
    assert clean.missing_keys == [] and clean.unexpected_keys == []


@pytest.mark.claim("modules.load-strict-checks-missing-and-unexpected")
def test_strict_failure_has_already_copied_matching_tensors():
    """Strict loading raises only after copying the tensors whose keys matched."""
    source, target = Small(), Small()
    state = source.state_dict()
    state["extra"] = torch.zeros(1)
    with pytest.raises(RuntimeError, match="Unexpected key"):
        target.load_state_dict(state)
    torch.testing.assert_close(target.conv1.weight, source.conv1.weight, msg=lambda m: (
        f"after a failed strict load conv1.weight was not copied: {m}"))


@pytest.mark.claim("modules.load-strict-checks-missing-and-unexpected")
@pytest.mark.parametrize("strict", [True, False])
def test_size_mismatch_raises_even_when_not_strict(strict):
    """A key present on both sides with another shape raises in both modes."""
    state = nn.Linear(3, 2).state_dict()
    with pytest.raises(RuntimeError, match="size mismatch for weight"):
        nn.Linear(4, 2).load_state_dict(state, strict=strict)


@pytest.mark.claim("modules.unexpected-keys-only-reported")
def test_extra_fc_keys_are_unexpected_and_need_strict_false():
    """Material: weights with an fc head into a model without fc only report unexpected keys.
    True: classified as unexpected, but the default strict=True raises."""
    with_fc, headless = Small(with_fc=True), Small(with_fc=False)
    with pytest.raises(RuntimeError, match='Unexpected key.*"fc.weight"'):
        headless.load_state_dict(with_fc.state_dict())
    result = headless.load_state_dict(with_fc.state_dict(), strict=False)
    assert result.missing_keys == [] and sorted(result.unexpected_keys) == ["fc.bias", "fc.weight"]
    dropped = {k: v for k, v in with_fc.state_dict().items() if not k.startswith("fc.")}
    clean = Small(with_fc=False).load_state_dict(dropped)  # strict, after dropping the head's keys
    assert (clean.missing_keys, clean.unexpected_keys) == ([], []), f"strict load without fc keys: {clean}"


@pytest.mark.claim("modules.unexpected-keys-only-reported", as_written=True, raises=RuntimeError, match=r"Error\(s\) in loading state_dict")
def test_as_written_extra_fc_keys_merely_reported():
    """Material: the fc keys are reported as unexpected and that is harmless.
    True: the default call raises RuntimeError."""
    result = Small(with_fc=False).load_state_dict(Small(with_fc=True).state_dict())
    assert "fc.weight" in result.unexpected_keys


@pytest.mark.claim("modules.resnet50-into-resnet18")
def test_resnet50_weights_into_resnet18_no_missing_keys_but_size_mismatch():
    """Material: layer3/layer4 would be missing and stay random.
    True: no key is missing; unexpected keys and size mismatches raise, even non-strict."""
    torchvision = need("torchvision")
    with torch.device("meta"):  # shapes and keys only: no memory, no init cost
        r18, r50 = torchvision.models.resnet18(weights=None), torchvision.models.resnet50(weights=None)
    s18, s50 = r18.state_dict(), r50.state_dict()
    missing = sorted(set(s18) - set(s50))
    assert missing == [], f"ResNet18 keys absent from ResNet50: {missing[:5]}...; expected none"
    for stage in ("layer1.", "layer2.", "layer3.", "layer4."):
        assert any(k.startswith(stage) for k in s18) and any(k.startswith(stage) for k in s50), (
            f"{stage} missing from ResNet18 or ResNet50; both have four stages")
    extra = set(s50) - set(s18)
    assert "layer1.0.conv3.weight" in extra and "layer1.0.bn3.weight" in extra and "layer3.5.conv1.weight" in extra, (
        f"ResNet50's unexpected keys should include conv3, bn3 and extra blocks: {sorted(extra)[:5]}...")
    reshaped = [k for k in s18 if s18[k].shape != s50[k].shape]
    assert "layer1.0.conv1.weight" in reshaped, f"shared keys with another shape: {reshaped[:5]}"
    with pytest.raises(RuntimeError, match="size mismatch"):
        r18.load_state_dict(s50, strict=False)


@pytest.mark.claim("modules.resnet50-into-resnet18", as_written=True, raises=RuntimeError, match=r"Error\(s\) in loading state_dict")
def test_as_written_resnet50_into_resnet18_leaves_layer3_missing():
    """Material: loading ResNet50 weights leaves layer3/layer4 keys missing.
    True: strict=False still raises on size mismatch, and no key is missing."""
    torchvision = need("torchvision")
    with torch.device("meta"):
        r18, r50 = torchvision.models.resnet18(weights=None), torchvision.models.resnet50(weights=None)
    result = r18.load_state_dict(r50.state_dict(), strict=False)
    assert any(k.startswith("layer3.") for k in result.missing_keys)


@pytest.mark.claim("modules.misspelled-key-missing-and-unexpected")
def test_misspelled_key_is_missing_and_unexpected_never_aligned():
    """Material: conv1.wight vs conv1.weight shows up as a key mismatch; no auto-alignment.
    True: missing 'conv1.weight', unexpected 'conv1.wight', same shape notwithstanding."""
    model = Small()
    state = model.state_dict()
    state["conv1.wight"] = state.pop("conv1.weight")
    target = Small()
    kept = target.conv1.weight.detach().clone()
    result = target.load_state_dict(state, strict=False)
    assert result.missing_keys == ["conv1.weight"] and result.unexpected_keys == ["conv1.wight"], (
        f"load_state_dict(strict=False) returned {result}")
    assert state["conv1.wight"].shape == target.conv1.weight.shape
    torch.testing.assert_close(target.conv1.weight.detach(), kept, msg=lambda m: (
        f"conv1.weight took the value of 'conv1.wight' (same shape); no name alignment should happen: {m}"))


# --- the 'module.' prefix -------------------------------------------------------------


@pytest.mark.claim("modules.ddp-prefix-mismatch-silent")
def test_prefixed_state_dict_into_bare_model_raises():
    """Material: a 'module.'-prefixed state dict loads without error but the model is bad.
    True: strict loading raises; only strict=False is silent, and then loads nothing."""
    wrapped = nn.DataParallel(Small())
    state = wrapped.state_dict()
    assert all(k.startswith("module.") for k in state), f"DataParallel keys: {list(state)[:3]}"
    assert not any(k.startswith("module.") for k in wrapped.module.state_dict())
    bare = Small()
    with pytest.raises(RuntimeError, match=r"(?s)Missing key\(s\).*Unexpected key\(s\)") as info:
        bare.load_state_dict(state)
    missing_part, unexpected_part = str(info.value).split("Unexpected key(s)")
    for key in bare.state_dict():
        assert (f'"{key}"' in missing_part) == (key != "bn1.num_batches_tracked"), (
            f"{key} listed as missing: {f'{chr(34)}{key}{chr(34)}' in missing_part}; every key but "
            "num_batches_tracked should be")
        assert f'"module.{key}"' in unexpected_part, f"module.{key} is not listed as unexpected"
    kept = {k: v.clone() for k, v in bare.state_dict().items()}
    result = bare.load_state_dict(state, strict=False)
    assert len(result.unexpected_keys) == len(state), f"unexpected keys: {result.unexpected_keys}"
    for key, value in bare.state_dict().items():
        torch.testing.assert_close(value, kept[key], msg=lambda m, key=key: (
            f"{key} changed in a non-strict load of a prefixed state dict; nothing should load: {m}"))
    # BatchNorm tolerates a missing num_batches_tracked (old checkpoints lack it)
    assert sorted(result.missing_keys) == sorted(set(bare.state_dict()) - {"bn1.num_batches_tracked"})


@pytest.mark.claim("modules.ddp-prefix-mismatch-silent", as_written=True, raises=RuntimeError, match=r"Error\(s\) in loading state_dict")
def test_as_written_prefixed_state_dict_loads_silently():
    """Material: load_state_dict reports no error on a prefix mismatch.
    True: RuntimeError."""
    Small().load_state_dict(nn.DataParallel(Small()).state_dict())


@pytest.mark.claim("modules.strip-module-prefix-loader")
@pytest.mark.parametrize("wrap", [True, False], ids=["prefixed", "bare"])
def test_reference_loader_strips_prefix_and_loads_strictly(ref, wrap):
    """Material: stripping 'module.' lets a DDP checkpoint load into the bare model.
    True: the stripped dict equals the inner state dict; bare dicts pass unchanged."""
    source = Small()
    with torch.no_grad():
        source.bn1.running_mean.fill_(3.0)
    state = nn.DataParallel(source).state_dict() if wrap else source.state_dict()
    stripped = ref.checkpoint.strip_module_prefix(state)
    assert list(stripped) == list(source.state_dict()), f"stripped keys {list(stripped)[:3]}..."
    target = Small()
    result = ref.checkpoint.load_state_dict_stripping_prefix(target, state)
    assert result.missing_keys == [] and result.unexpected_keys == []
    for key, value in source.state_dict().items():
        # where CUDA is present nn.DataParallel moves its module to the first GPU (its __init__):
        # the values are what the loader carries over, the target stays where it was made
        torch.testing.assert_close(target.state_dict()[key], value, check_device=False, msg=lambda m: f"{key}: {m}")


@pytest.mark.claim("modules.strip-module-prefix-loader")
def test_reference_loader_still_refuses_mismatch_after_stripping(ref):
    """Keys that still do not match after stripping raise RuntimeError (strict)."""
    state = nn.DataParallel(Small(with_fc=True)).state_dict()
    with pytest.raises(RuntimeError, match='Unexpected key.*"fc.weight"'):
        ref.checkpoint.load_state_dict_stripping_prefix(Small(with_fc=False), state)


@pytest.mark.claim("modules.strip-module-prefix-loader")
def test_reference_strip_keeps_values_and_metadata(ref):
    """Stripping keeps tensor identity and renames the per-module _metadata."""
    state = nn.DataParallel(Small()).state_dict()
    stripped = ref.checkpoint.strip_module_prefix(state)
    assert stripped["conv1.weight"] is state["module.conv1.weight"]
    assert "bn1" in stripped._metadata and "" in stripped._metadata
    assert ref.checkpoint.strip_module_prefix({}) == {}
    assert list(ref.checkpoint.strip_module_prefix({"modulex.w": 1, "module.module.w": 2})) == [
        "modulex.w", "module.w"], "only one leading 'module.' should be removed"


@pytest.mark.claim("devices.ddp-needs-process-group")
def test_ddp_without_process_group_raises_has_not_been_initialized():
    """Material: RuntimeError 'Default process group is not initialized'.
    True on every release: the message says "has not been initialized" (a RuntimeError up to 2.1)."""
    import torch.distributed as dist
    if not dist.is_available():
        pytest.skip("torch.distributed is not built in")
    assert not dist.is_initialized()
    with pytest.raises((RuntimeError, ValueError), match="Default process group has not been initialized"):
        nn.parallel.DistributedDataParallel(nn.Linear(2, 2))


@pytest.mark.claim("devices.ddp-needs-process-group")
@pytest.mark.needs_torch(">=2.2", reason="up to 2.1 the error is a RuntimeError (measured on 2.1.2); "
                                         "2.2 raises ValueError (distributed_c10d.py of the 2.2.2 wheel)")
def test_ddp_without_process_group_raises_value_error():
    """Material: RuntimeError 'Default process group is not initialized'.
    True on recent releases: the type is ValueError, not RuntimeError."""
    import torch.distributed as dist
    if not dist.is_available():
        pytest.skip("torch.distributed is not built in")
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        nn.parallel.DistributedDataParallel(nn.Linear(2, 2))


# ValueError: current torch; AssertionError: 2.0 and older raise RuntimeError, but worded "has not been initialized"
@pytest.mark.claim("devices.ddp-needs-process-group", as_written=True, raises=(ValueError, AssertionError),
                   match=r"process group has not been initialized")
def test_as_written_ddp_without_process_group_message():
    """Material: RuntimeError: Default process group is not initialized.
    True: a ValueError with other wording."""
    import torch.distributed as dist
    if not dist.is_available():
        pytest.skip("torch.distributed is not built in")
    with pytest.raises(RuntimeError, match="Default process group is not initialized"):
        nn.parallel.DistributedDataParallel(nn.Linear(2, 2))


# --- torch.save(model) against state_dict; torch.load and weights_only -------------------


class CarriesBaggage(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
        self.history = list(range(20_000))  # e.g. a cached dataset or loader state


@pytest.mark.claim("modules.save-whole-model-pickles-attributes")
def test_saving_whole_model_pickles_non_parameter_attributes(tmp_path):
    """Material: torch.save(model) serialises the object with all its __dict__ attributes.
    True: a large plain attribute lands in the file; state_dict() leaves it out."""
    model = CarriesBaggage()
    whole, weights = tmp_path / "model.pth", tmp_path / "weights.pth"
    torch.save(model, whole)
    torch.save(model.state_dict(), weights)
    whole_size, weights_size = os.path.getsize(whole), os.path.getsize(weights)
    assert whole_size > 20 * weights_size, (
        f"torch.save(model) wrote {whole_size} bytes, state_dict {weights_size}; the whole "
        "model should be far larger because it pickles the 20,000-element list attribute")
    loaded = torch.load(whole, weights_only=False)
    assert type(loaded) is CarriesBaggage and len(loaded.history) == 20_000


@pytest.mark.claim("modules.save-whole-model-pickles-attributes")
def test_whole_model_file_needs_its_class_importable(tmp_path, monkeypatch):
    """Material: torch.save(model) pickles the whole object.
    True: by reference to its class: without the class under its name, loading fails."""
    path = tmp_path / "model.pth"
    torch.save(CarriesBaggage(), path)
    monkeypatch.delattr(__import__(__name__), "CarriesBaggage")
    with pytest.raises(AttributeError, match="CarriesBaggage"):
        torch.load(path, weights_only=False)


@pytest.mark.claim("modules.state-dict-holds-only-parameters")
def test_state_dict_holds_parameters_and_persistent_buffers_no_structure(ref):
    """Material: state_dict holds only parameters, no structure.
    True: no structure, but buffers too; load needs an instance of the class."""
    model = Small()
    state = model.state_dict()
    params = {name for name, _ in model.named_parameters()}
    assert set(state) - params == {"bn1.running_mean", "bn1.running_var", "bn1.num_batches_tracked"}
    assert all(isinstance(v, torch.Tensor) for v in state.values()), "state_dict values should be tensors only"
    restored = Small()
    restored.load_state_dict(save_load(state, weights_only=True))
    x = torch.randn(2, 3, 5, 5)
    torch.testing.assert_close(restored.eval()(x), model.eval()(x))
    weights_bytes = sum(v.numel() * v.element_size() for v in ref.models.SmallCNN().state_dict().values())
    assert weights_bytes < 10 * 2**20, f"SmallCNN weights take {weights_bytes} bytes"


@pytest.mark.claim("modules.state-dict-holds-only-parameters", as_written=True)
def test_as_written_state_dict_only_parameters():
    """Material: state_dict() stores only the parameters.
    True: BatchNorm's buffers are in it too."""
    model = Small()
    assert set(model.state_dict()) == {name for name, _ in model.named_parameters()}


@pytest.mark.claim("modules.whole-model-torch-load")
def test_whole_model_needs_explicit_weights_only_false(tmp_path):
    """Material: torch.load reads a whole saved model back (only slowly).
    True: refused by weights_only=True (the default since 2.6); weights_only=False loads it."""
    path = tmp_path / "whole.pth"
    torch.save(nn.Linear(3, 2), path)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        torch.load(path, weights_only=True)
    assert isinstance(torch.load(path, weights_only=False), nn.Linear)
    with pytest.raises(pickle.UnpicklingError):
        torch.load(path)  # weights_only left at its default on purpose: the default is what is checked


@pytest.mark.claim("modules.whole-model-torch-load")
@pytest.mark.needs_torch(">=2.6", reason="weights_only=True became torch.load's default in 2.6")
def test_whole_model_loads_under_the_default_once_its_classes_are_allowed(tmp_path):
    """Material: torch.load reads a whole saved model back.
    True: the default refuses it, and loads it once its classes are allowed (safe_globals)."""
    path = tmp_path / "whole.pth"
    torch.save(Small(), path)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        torch.load(path)  # weights_only left at its default on purpose: the default is what is checked
    with torch.serialization.safe_globals([Small, nn.Conv2d, nn.BatchNorm2d, nn.Linear]):
        assert isinstance(torch.load(path), Small)  # weights_only left at its default on purpose: allow-listed
    saved = torch.serialization.get_safe_globals()
    try:
        torch.serialization.add_safe_globals([Small, nn.Conv2d, nn.BatchNorm2d, nn.Linear])
        assert isinstance(torch.load(path), Small)  # weights_only left at its default on purpose: allow-listed
    finally:
        torch.serialization.clear_safe_globals()
        torch.serialization.add_safe_globals(saved)


@pytest.mark.claim("modules.whole-model-torch-load")
@pytest.mark.needs_torch(">=2.6", reason="weights_only=True became torch.load's default in 2.6")
def test_weights_only_error_names_weights_only_false_and_the_allow_list(tmp_path):
    """Material: torch.load reads a whole saved model back.
    True: the refusal names weights_only=False, add_safe_globals and safe_globals as ways out."""
    path = tmp_path / "whole.pth"
    torch.save(nn.Linear(3, 2), path)
    with pytest.raises(pickle.UnpicklingError) as info:
        torch.load(path)  # weights_only left at its default on purpose: the default's message is what is checked
    text = str(info.value)
    for route in ("weights_only", "add_safe_globals", "safe_globals"):
        assert route in text, f"the weights_only error does not name {route!r}: {text[:300]}"


@pytest.mark.claim("modules.whole-model-torch-load")
@pytest.mark.needs_torch(">=2.6", reason="TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD came with the weights_only default in 2.6")
@pytest.mark.filterwarnings("ignore:Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD:UserWarning")   # torch says what it did
def test_whole_model_loads_under_the_default_with_the_environment_override(tmp_path, monkeypatch):
    """Material: torch.load reads a whole saved model back.
    True: also under the default when TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1 is set (trusting the file)."""
    path = tmp_path / "whole.pth"
    torch.save(nn.Linear(3, 2), path)
    with pytest.raises(pickle.UnpicklingError):
        torch.load(path)  # weights_only left at its default on purpose: the default is what is checked
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    assert isinstance(torch.load(path), nn.Linear)  # weights_only left at its default on purpose: the variable decides


@pytest.mark.claim("modules.whole-model-torch-load", as_written=True, raises=pickle.UnpicklingError, match=r"Weights only load failed")
def test_as_written_plain_torch_load_of_whole_model(tmp_path):
    """Material: torch.load(path), weights_only not given, returns the saved module.
    True from 2.6 on: the default weights_only=True refuses it."""
    path = tmp_path / "whole.pth"
    torch.save(nn.Linear(3, 2), path)
    assert isinstance(torch.load(path), nn.Linear)  # weights_only left at its default on purpose: the material's call


class Payload:
    """Unpickling this would create a marker file: the code a malicious checkpoint runs."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


@pytest.mark.claim("modules.torch-load-checkpoint-dict")
def test_weights_only_refuses_code_running_pickle(tmp_path):
    """Material: checkpoints are read back with torch.load.
    True: weights_only=True refuses a __reduce__ payload and runs none of it."""
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.pth"
    torch.save({"model_state_dict": {}, "x": Payload(marker)}, path)
    assert not marker.exists()
    with pytest.raises(pickle.UnpicklingError):
        torch.load(path, weights_only=True)
    assert not marker.exists(), "loading with weights_only=True executed the pickled payload"
    handle = torch.load(path, weights_only=False)["x"]  # the unsafe path does run it
    handle.close()
    assert marker.exists(), "weights_only=False should have run the payload (proving it is live)"


@pytest.mark.claim("modules.torch-load-checkpoint-dict")
@pytest.mark.measurable_on(">=2.0", reason=FLOATS_UNDER_WEIGHTS_ONLY)
def test_checkpoint_dicts_load_under_weights_only(tmp_path):
    """Model, optimizer and scheduler state dicts plus numbers all pass weights_only."""
    model = Small()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model(torch.randn(2, 3, 5, 5)).sum().backward()
    optimizer.step()
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    blob = {"epoch": 3, "val_acc": 61.5, "model_state_dict": model.state_dict(),
            "optimizer_state_dict": optimizer.state_dict(), "scheduler_state_dict": scheduler.state_dict()}
    path = tmp_path / "ckpt.pth"
    torch.save(blob, path)
    loaded = torch.load(path, map_location="cpu", weights_only=True)
    assert loaded["epoch"] == 3 and loaded["val_acc"] == 61.5
    default = Version(torch.__version__).release >= (2, 6)   # the weights_only a plain torch.load(path) uses here
    plain = torch.load(path, weights_only=default)
    assert plain["epoch"] == 3 and set(plain) == set(blob), f"torch.load with the default weights_only gave {sorted(plain)}"
    Small().load_state_dict(loaded["model_state_dict"])
    torch.optim.Adam(Small().parameters()).load_state_dict(loaded["optimizer_state_dict"])
    assert loaded["scheduler_state_dict"] == scheduler.state_dict()


@pytest.mark.claim("modules.torch-load-checkpoint-dict")
@pytest.mark.measurable_on(">=2.3", reason="torch.cuda.amp.GradScaler exists, but disables itself without CUDA; "
                           "torch.amp.GradScaler, usable on the CPU, appeared in 2.3")
def test_grad_scaler_state_dict_loads_under_weights_only(tmp_path):
    """A GradScaler state dict inside a checkpoint passes weights_only too."""
    path = tmp_path / "ckpt.pth"
    torch.save({"epoch": 3, "scaler_state_dict": torch.amp.GradScaler("cpu").state_dict()}, path)
    loaded = torch.load(path, map_location="cpu", weights_only=True)
    assert loaded["scaler_state_dict"]["scale"] == 65536.0


# --- checkpoints and resuming -------------------------------------------------------------


def make_run(optim_name):
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1))
    if optim_name == "adam":
        optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    else:
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    return model, optimizer, scheduler


def train_step(model, optimizer, scheduler, batch):
    x, y = batch
    optimizer.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    optimizer.step()
    scheduler.step()


BATCHES = [(torch.randn(6, 4, generator=torch.Generator().manual_seed(i)),
            torch.randn(6, 1, generator=torch.Generator().manual_seed(100 + i))) for i in range(4)]


@pytest.mark.claim("modules.checkpoint-with-optimizer-state")
@pytest.mark.measurable_on(">=2.0", reason="the reference loader uses weights_only=True: " + FLOATS_UNDER_WEIGHTS_ONLY)
@pytest.mark.parametrize("optim_name", ["adam", "sgd-momentum"])
def test_resume_from_checkpoint_equals_never_stopping(ref, tmp_path, optim_name):
    """Material: save epoch + model + optimizer state dicts, restore both to resume.
    True: the resumed run takes exactly the step an uninterrupted run takes."""
    model, optimizer, scheduler = make_run(optim_name)
    for batch in BATCHES[:3]:
        train_step(model, optimizer, scheduler, batch)
    path = tmp_path / "ckpt.pth"
    ref.checkpoint.save_checkpoint(path, model, optimizer, epoch=2, scheduler=scheduler)
    train_step(model, optimizer, scheduler, BATCHES[3])

    resumed, r_optimizer, r_scheduler = make_run(optim_name)
    epoch = ref.checkpoint.load_checkpoint(path, resumed, r_optimizer, scheduler=r_scheduler)
    assert epoch == 2
    train_step(resumed, r_optimizer, r_scheduler, BATCHES[3])
    for (name, a), b in zip(model.state_dict().items(), resumed.state_dict().values()):
        torch.testing.assert_close(b, a, msg=lambda m: f"{name} after resume differs from the uninterrupted run: {m}")
    assert r_optimizer.param_groups[0]["lr"] == optimizer.param_groups[0]["lr"]


@pytest.mark.claim("modules.checkpoint-with-optimizer-state")
@pytest.mark.measurable_on(">=2.0", reason="the reference loader uses weights_only=True: " + FLOATS_UNDER_WEIGHTS_ONLY)
def test_reference_checkpoint_unwraps_dataparallel(ref, tmp_path):
    """save_checkpoint stores bare keys even for a DataParallel-wrapped model."""
    wrapped = nn.DataParallel(Small())
    optimizer = torch.optim.SGD(wrapped.parameters(), lr=0.1)
    path = tmp_path / "dp.pth"
    ref.checkpoint.save_checkpoint(path, wrapped, optimizer, epoch=0)
    keys = torch.load(path, weights_only=True)["model_state_dict"].keys()
    assert not any(k.startswith("module.") for k in keys), f"saved keys {list(keys)[:3]}"
    assert ref.checkpoint.load_checkpoint(path, Small()) == 0


@pytest.mark.claim("modules.resume-without-optimizer-lr-zero")
@pytest.mark.parametrize("optim_name", ["adam", "sgd-momentum"])
def test_resume_without_optimizer_state_keeps_lr_but_loses_moments(ref, tmp_path, optim_name):
    """Material: without optimizer state the learning rate drops to zero on resume.
    True: lr is the constructor's (the scheduler restarts at the base lr, i.e. higher);
    the moments/momentum are lost, so the next step differs."""
    model, optimizer, scheduler = make_run(optim_name)
    for batch in BATCHES[:3]:
        train_step(model, optimizer, scheduler, batch)
    path = tmp_path / "weights_only.pth"
    torch.save({"model_state_dict": model.state_dict()}, path)
    decayed_lr = optimizer.param_groups[0]["lr"]
    train_step(model, optimizer, scheduler, BATCHES[3])

    resumed, r_optimizer, r_scheduler = make_run(optim_name)
    resumed.load_state_dict(torch.load(path, weights_only=True)["model_state_dict"])
    lr = r_optimizer.param_groups[0]["lr"]
    assert lr == 0.05 and lr > decayed_lr > 0, (
        f"resumed lr = {lr}, interrupted run's lr = {decayed_lr}; expected the base lr 0.05, "
        "higher than the decayed one and certainly not 0")
    assert r_optimizer.state_dict()["state"] == {}, "a fresh optimizer should have no moments"
    train_step(resumed, r_optimizer, r_scheduler, BATCHES[3])
    differs = [n for (n, a), b in zip(model.state_dict().items(), resumed.state_dict().values())
               if a.is_floating_point() and not torch.allclose(a, b)]
    assert differs, "resuming without optimizer state reproduced the uninterrupted step exactly"


@pytest.mark.claim("modules.resume-without-optimizer-lr-zero", as_written=True)
def test_as_written_resume_without_optimizer_state_lr_zero():
    """Material: the learning rate becomes zero after resuming without optimizer state.
    True: it is the lr passed to the new optimizer."""
    _, optimizer, _ = make_run("adam")
    assert optimizer.param_groups[0]["lr"] == 0, f"lr = {optimizer.param_groups[0]['lr']}"


@pytest.mark.claim("modules.scaler-state-in-checkpoint")
@pytest.mark.measurable_on(">=2.3", reason="torch.cuda.amp.GradScaler exists, but disables itself without CUDA; "
                           "torch.amp.GradScaler, usable on the CPU, appeared in 2.3")
def test_grad_scaler_scale_restarts_without_its_state():
    """Material: without scaler state the loss scale restarts from its initial value.
    True: 65536.0 for a new scaler; load_state_dict restores the saved one."""
    trained = torch.amp.GradScaler("cpu", init_scale=1024.0)
    fresh = torch.amp.GradScaler("cpu")
    assert fresh.get_scale() == 65536.0, f"new GradScaler scale = {fresh.get_scale()}, expected 2**16"
    state = fresh.state_dict()
    assert set(state) == {"scale", "growth_factor", "backoff_factor", "growth_interval", "_growth_tracker"}, (
        f"GradScaler.state_dict() keys = {sorted(state)}")
    assert state["_growth_tracker"] == 0, f"a new scaler's growth tracker = {state['_growth_tracker']}, expected 0"
    restored = torch.amp.GradScaler("cpu")
    restored.load_state_dict(save_load(trained.state_dict(), weights_only=True))
    assert restored.get_scale() == 1024.0, f"restored scale = {restored.get_scale()}, expected 1024.0"


@pytest.mark.claim("modules.scaler-state-in-checkpoint")
@pytest.mark.measurable_on(">=2.3", reason="torch.cuda.amp.GradScaler exists, but disables itself without CUDA; "
                           "torch.amp.GradScaler, usable on the CPU, appeared in 2.3")
def test_grad_scaler_overflow_skips_step_and_halves_scale():
    """An overflowing scaled gradient skips optimizer.step() (weights kept) and halves the scale."""
    weight = nn.Parameter(torch.ones(2))
    optimizer = torch.optim.SGD([weight], lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    loss = (weight * 1e35).sum()  # 1e35 * 65536 overflows float32
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    torch.testing.assert_close(weight.detach(), torch.ones(2), msg=lambda m: (
        f"an overflowing step changed the weights; GradScaler should skip it: {m}"))
    assert scaler.get_scale() == 32768.0, f"scale after overflow = {scaler.get_scale()}, expected 32768.0"


@pytest.mark.claim("modules.scaler-state-in-checkpoint")
@pytest.mark.measurable_on(">=2.3", reason="torch.cuda.amp.GradScaler exists, but disables itself without CUDA; "
                           "torch.amp.GradScaler, usable on the CPU, appeared in 2.3")
def test_reference_checkpoint_round_trips_scaler(ref, tmp_path):
    """save_checkpoint/load_checkpoint carry the GradScaler state."""
    model = Small()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu", init_scale=256.0)
    ref.checkpoint.save_checkpoint(tmp_path / "c.pth", model, optimizer, 5, scaler=scaler)
    target = torch.amp.GradScaler("cpu")
    assert ref.checkpoint.load_checkpoint(tmp_path / "c.pth", Small(), scaler=target) == 5
    assert target.get_scale() == 256.0


def adam_with_state(dtype):
    p = nn.Parameter(torch.ones(3, dtype=dtype))
    optimizer = torch.optim.Adam([p], lr=0.1)
    p.grad = torch.ones(3, dtype=dtype)
    optimizer.step()
    return p, optimizer


@pytest.mark.claim("modules.optimizer-to-after-load")
def test_optimizer_load_state_dict_casts_state_to_the_parameters():
    """Material: after optimizer.load_state_dict you must call optimizer_to.
    True: load_state_dict already casts state to each parameter's dtype/device."""
    _, saved_from = adam_with_state(torch.float32)
    p64, _ = adam_with_state(torch.float64)
    target = torch.optim.Adam([p64], lr=0.1)
    target.load_state_dict(saved_from.state_dict())
    state = target.state[p64]
    assert state["exp_avg"].dtype == torch.float64, (
        f"exp_avg dtype after load_state_dict = {state['exp_avg'].dtype}, expected the parameter's float64")
    assert state["step"].dtype == saved_from.state_dict()["state"][0]["step"].dtype == torch.float32, (
        f"'step' dtype after load_state_dict = {state['step'].dtype}; it should be left as saved, not cast")
    before = p64.detach().clone()
    p64.grad = torch.ones(3, dtype=torch.float64)
    target.step()
    assert not torch.equal(p64.detach(), before), "step() after load_state_dict did not update the parameter"


@pytest.mark.claim("modules.optimizer-to-after-load")
@pytest.mark.needs_torch(">=2.4", reason="fused Adam on the CPU appeared in 2.4")
def test_optimizer_load_state_dict_casts_step_only_for_fused_groups():
    """'step' is left as saved, except in fused (or capturable) groups, where it becomes float32."""
    for fused, expected in ((False, torch.float64), (True, torch.float32)):
        p = nn.Parameter(torch.ones(3))
        source = torch.optim.Adam([p], lr=0.1, fused=fused)
        p.grad = torch.ones(3)
        source.step()
        saved = source.state_dict()
        saved["state"][0]["step"] = saved["state"][0]["step"].double()
        q = nn.Parameter(torch.ones(3, dtype=torch.float64))
        target = torch.optim.Adam([q], lr=0.1, fused=fused)
        target.load_state_dict(saved)
        assert target.state[q]["step"].dtype == expected, (
            f"fused={fused}: loaded 'step' dtype {target.state[q]['step'].dtype}, expected {expected}")


@pytest.mark.claim("modules.optimizer-to-after-load")
@pytest.mark.gpu
def test_optimizer_load_state_dict_moves_state_to_cuda():
    """On a GPU: CPU-saved optimizer state lands on the CUDA parameter's device."""
    _, saved_from = adam_with_state(torch.float32)
    p = nn.Parameter(torch.ones(3, device="cuda"))
    target = torch.optim.Adam([p], lr=0.1)
    target.load_state_dict(saved_from.state_dict())
    assert target.state[p]["exp_avg"].device.type == "cuda"
    p.grad = torch.ones(3, device="cuda")
    target.step()


@pytest.mark.claim("modules.optimizer-to-after-load")
def test_reference_optimizer_to_moves_state_but_not_step(ref):
    """The reference optimizer_to moves the state tensors (to 'meta' here) and leaves 'step'."""
    p, optimizer = adam_with_state(torch.float32)
    assert ref.checkpoint.optimizer_to(optimizer, "cpu") is optimizer
    step = optimizer.state[p]["step"]
    ref.checkpoint.optimizer_to(optimizer, torch.device("meta"))
    assert optimizer.state[p]["exp_avg"].device.type == "meta"
    assert optimizer.state[p]["step"] is step, "optimizer_to should leave the step counter alone"


@pytest.mark.claim("modules.optimizer-to-after-load")
def test_model_converted_after_the_optimizer_has_state_makes_step_raise():
    """Material: without optimizer_to, step() leaves the parameters un-updated.
    True: stale state (model converted after the optimizer has state) makes step() raise."""
    model = nn.Linear(3, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
    model(torch.ones(1, 3)).sum().backward()
    optimizer.step()
    optimizer.zero_grad()
    model.to(torch.float64)  # the parameters keep their identity; the Adam state stays float32
    model(torch.ones(1, 3, dtype=torch.float64)).sum().backward()
    with pytest.raises(RuntimeError, match="dtype"):
        optimizer.step()


@pytest.mark.claim("modules.optimizer-to-after-load")
@pytest.mark.gpu
def test_model_moved_to_cuda_after_the_optimizer_has_state_makes_step_raise():
    """On a GPU: state left on the CPU after model.cuda() makes step() raise, not skip."""
    model = nn.Linear(3, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
    model(torch.ones(1, 3)).sum().backward()
    optimizer.step()
    optimizer.zero_grad()
    model.to("cuda")
    model(torch.ones(1, 3, device="cuda")).sum().backward()
    with pytest.raises(RuntimeError, match="device"):
        optimizer.step()


@pytest.mark.claim("modules.optimizer-to-after-load", as_written=True)
def test_as_written_step_after_load_without_optimizer_to():
    """Material: without optimizer_to, step() leaves the parameters un-updated.
    True: they are updated."""
    _, saved_from = adam_with_state(torch.float32)
    p, _ = adam_with_state(torch.float32)
    target = torch.optim.Adam([p], lr=0.1)
    target.load_state_dict(saved_from.state_dict())
    before = p.detach().clone()
    p.grad = torch.ones(3)
    target.step()
    torch.testing.assert_close(p.detach(), before)


@pytest.mark.distributed
@pytest.mark.claim("modules.strip-module-prefix-loader")
def test_real_ddp_state_dict_has_module_prefix_and_loader_strips_it(ref, single_process_group):
    """A real DistributedDataParallel (gloo, one rank) saves 'module.' keys; the loader strips them."""
    inner = Small()
    ddp = nn.parallel.DistributedDataParallel(inner)
    state = ddp.state_dict()
    assert all(k.startswith("module.") for k in state), f"DDP state_dict keys {list(state)[:3]}"
    target = Small()
    ref.checkpoint.load_state_dict_stripping_prefix(target, state)
    torch.testing.assert_close(target.conv1.weight, inner.conv1.weight)
