"""Modules, saving and loading: what torch.save writes, the keys of a model's and an optimizer's
state_dict, and what a whole pickled model brings back (issue #41, tutorials)."""
import zipfile

import pytest
import torch
from torch import nn


class TheModel(nn.Module):
    """The small CNN of the saving tutorials: two convolutions, a pool, three linear layers."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv1(x)))
        x = self.pool(torch.relu(self.conv2(x)))
        x = x.flatten(1)
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


class DropNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(self.fc(x))


# ---------------------------------------------------------------- torch.save

@pytest.mark.claim("modules.torch-save-pickles-to-zip")
def test_torch_save_writes_a_zip_with_a_pickle_and_the_storages(tmp_path):
    """Tutorials: torch.save serialises any object (tensor, list, dict, model) with pickle.
    True: the file is a zip archive holding data.pkl (the pickle) and one entry per storage; a
    tensor, a list and a dict of tensors come back equal; the file name's extension is free."""
    x, y = torch.arange(3.0), torch.zeros(4)
    for obj, name in [(x, "x.pt"), ([x, y], "xy.pth"), ({"x": x, "y": y}, "xy.bin")]:
        path = tmp_path / name
        torch.save(obj, path)
        assert zipfile.is_zipfile(path), f"{name} is not a zip archive"
        entries = zipfile.ZipFile(path).namelist()
        assert any(e.endswith("/data.pkl") for e in entries), f"no data.pkl in {entries}"
        assert any("/data/" in e for e in entries), f"no storage entries in {entries}"
        back = torch.load(path, weights_only=True)
        pairs = [(obj, back)] if isinstance(obj, torch.Tensor) else (
            list(zip(obj, back)) if isinstance(obj, list) else [(obj[k], back[k]) for k in obj])
        assert all(torch.equal(a, b) for a, b in pairs), f"{name} came back as {back}"


# ---------------------------------------------------------------- state_dict keys

@pytest.mark.claim("modules.state-dict-keys-layer-paths")
def test_state_dict_keys_are_layer_paths_and_parameterless_layers_have_none():
    """Tutorials: state_dict maps each layer to its parameter tensors; only layers with learnable
    parameters (or buffers) have entries.  True: keys are attribute paths such as 'conv1.weight';
    pool, ReLU and Dropout add nothing; Sequential children are named by index."""
    keys = list(TheModel().state_dict())
    expected = [f"{layer}.{kind}" for layer in ("conv1", "conv2", "fc1", "fc2", "fc3") for kind in ("weight", "bias")]
    assert keys == expected, f"state_dict keys {keys}, expected {expected}"
    seq = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Dropout(), nn.Linear(4, 2), nn.BatchNorm1d(2))
    assert list(seq.state_dict()) == ["0.weight", "0.bias", "3.weight", "3.bias", "4.weight", "4.bias",
                                      "4.running_mean", "4.running_var", "4.num_batches_tracked"], list(seq.state_dict())


@pytest.mark.claim("modules.state-dict-keys-layer-paths")
def test_state_dict_values_are_detached_tensors_over_the_parameters_storage():
    """True: the values are plain tensors (requires_grad False) sharing memory with the parameters."""
    model = nn.Linear(3, 2)
    sd = model.state_dict()
    assert not sd["weight"].requires_grad and type(sd["weight"]) is torch.Tensor, f"{type(sd['weight'])}"
    assert sd["weight"].data_ptr() == model.weight.data_ptr(), "state_dict copied the weight"


# ---------------------------------------------------------------- optimizer state_dict

@pytest.mark.claim("modules.optimizer-state-dict-state-and-param-groups")
def test_optimizer_state_dict_has_state_and_param_groups_with_integer_ids():
    """Tutorials: an optimizer's state_dict holds its state and its hyperparameters (param_groups).
    True: exactly the keys 'state' and 'param_groups'; params are listed as integer ids 0, 1, ...;
    state is empty before the first step and holds a momentum_buffer per parameter after it."""
    model = nn.Linear(5, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
    sd = opt.state_dict()
    assert set(sd) == {"state", "param_groups"}, f"keys {set(sd)}"
    assert sd["state"] == {}, f"state before any step: {sd['state']}"
    group = sd["param_groups"][0]
    assert group["params"] == [0, 1] and group["lr"] == 0.001 and group["momentum"] == 0.9, f"param group {group}"
    model(torch.randn(3, 5)).sum().backward()
    opt.step()
    state = opt.state_dict()["state"]
    assert sorted(state) == [0, 1] and all(set(s) == {"momentum_buffer"} for s in state.values()), f"state {state}"


@pytest.mark.claim("modules.optimizer-state-dict-state-and-param-groups")
def test_adam_state_holds_step_and_both_moments():
    """True: Adam keeps step, exp_avg and exp_avg_sq per parameter, none of the parameters themselves."""
    model = nn.Linear(5, 2)
    opt = torch.optim.Adam(model.parameters())
    model(torch.randn(3, 5)).sum().backward()
    opt.step()
    state = opt.state_dict()["state"]
    assert all(set(s) == {"step", "exp_avg", "exp_avg_sq"} for s in state.values()), f"Adam state {state}"


# ---------------------------------------------------------------- whole model

def trained_dropnet():
    model = DropNet()
    model(torch.randn(4, 8)).sum().backward()
    assert all(p.grad is not None for p in model.parameters())
    return model


@pytest.mark.claim("modules.whole-model-save-keeps-graph")
def test_a_whole_saved_model_comes_back_without_grads_and_eval_works(tmp_path):
    """Tutorials: torch.save(model) stores the graph and cached gradients, so after loading eval()
    has no effect and backward fails.  True: no .grad and no graph are saved; the training flag
    comes back as saved; eval() then turns Dropout off; forward and backward work as usual."""
    model = trained_dropnet()
    path = tmp_path / "whole.pt"
    torch.save(model, path)
    loaded = torch.load(path, weights_only=False)
    assert all(p.grad is None for p in loaded.parameters()), "a gradient came back from the file"
    assert loaded.training is True, "the training flag was not restored as saved"
    loaded.eval()
    x = torch.randn(4, 8)
    assert torch.equal(loaded(x), loaded(x)) and torch.equal(loaded(x), loaded.fc(x)), "Dropout still active after eval()"
    loaded.train()
    for _ in range(2):
        loaded(x).sum().backward()
    assert loaded.fc.weight.grad is not None


@pytest.mark.claim("modules.whole-model-save-keeps-graph")
def test_a_model_saved_in_eval_mode_loads_in_eval_mode(tmp_path):
    """True: the training flag is an ordinary attribute: saved in eval mode, it loads in eval mode."""
    model = DropNet().eval()
    torch.save(model, tmp_path / "eval.pt")
    loaded = torch.load(tmp_path / "eval.pt", weights_only=False)
    assert loaded.training is False and loaded.drop.training is False, "eval mode lost on load"


@pytest.mark.claim("modules.whole-model-save-keeps-graph", as_written=True)
def test_as_written_whole_model_file_carries_the_gradients(tmp_path):
    """Tutorials: the whole-model file keeps the cached gradients.  True: none come back (strict xfail)."""
    torch.save(trained_dropnet(), tmp_path / "whole.pt")
    loaded = torch.load(tmp_path / "whole.pt", weights_only=False)
    assert any(p.grad is not None for p in loaded.parameters()), "no parameter of the loaded model has a .grad"
