"""The material's example networks, written out so specs can check what they claim.

Sources: 002_015987172f286748.txt §3.3 (the network with a swappable head), §4.3 (the
small CIFAR-10 CNN), §5.1 (the checkpointed block), §5.2 (weight initialisation);
003_cc3cb04f54b5f923.txt §4.3 (BasicBlock and the "ResNet18Mini" for CIFAR).

All networks take 3x32x32 images (CIFAR-10).
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

__all__ = ["SmallCNN", "SwappableHeadNet", "BasicBlock", "ResNet18", "ResNet18Mini",
           "CheckpointedBlock", "init_weights", "count_parameters"]


def count_parameters(module: nn.Module) -> int:
    """Number of scalar weights in ``module.parameters()`` (what the material prints)."""
    return sum(p.numel() for p in module.parameters())


class SmallCNN(nn.Module):
    """The material's ``SimpleCNN`` for CIFAR-10 (002 §4.3).

    Two 3x3 convolutions with padding 1, each followed by ReLU and 2x2 max pooling, so a
    32x32 image becomes 64 channels of 8x8: ``feature_size = 64 * 8 * 8 = 4096`` values
    enter the classifier (Linear 4096 -> 512 -> num_classes, Dropout 0.5 in between).
    ``forward`` flattens with ``torch.flatten(x, 1)``; ``self.classifier`` is an
    ``nn.Sequential`` whose first layer is that ``Linear`` (``init_weights``' spec reads
    ``classifier[0].weight``).
    Dropout2d(0.1) closes the feature extractor.  2,122,186 parameters for 10 classes.
    """

    feature_size = 64 * 8 * 8

    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Dropout2d(0.1),
        )
        self.classifier = nn.Sequential(
            nn.Linear(self.feature_size, 512),
            nn.ReLU(inplace=True),
            nn.Dropout(0.5),
            nn.Linear(512, num_classes),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.features(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


class SwappableHeadNet(nn.Module):
    """The material's ``DynamicNet`` (002 §3.3): a fixed feature extractor and a head
    (``self.classifier``) that can be replaced by plain attribute assignment.

    The convolutions have no padding: 32 -> 30 -> 15 -> 13 -> 6, so
    ``feature_size = 64 * 6 * 6 = 2304`` for a 32x32 input, as the material says.
    """

    feature_size = 64 * 6 * 6

    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Linear(self.feature_size, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.features(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)

    def replace_head(self, num_classes: int) -> nn.Linear:
        """Swap the head, as the material does (``model.classifier = nn.Linear(...)``).

        Returns the new head.  An optimizer built before the swap still holds the old
        head's parameters: build a new one (or add a param group) afterwards.
        """
        self.classifier = nn.Linear(self.feature_size, num_classes)
        return self.classifier


class BasicBlock(nn.Module):
    """ResNet basic block as the material writes it (003 §4.3).

    Two 3x3 convolutions without bias, each with BatchNorm; the shortcut is the identity,
    or a 1x1 convolution + BatchNorm when the stride or the channel count changes; ReLU
    comes after the addition.
    """

    expansion = 1

    def __init__(self, in_channels: int, out_channels: int, stride: int = 1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(out_channels)
        self.conv2 = nn.Conv2d(out_channels, out_channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_channels)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_channels != out_channels:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_channels, out_channels, 1, stride=stride, bias=False),
                nn.BatchNorm2d(out_channels),
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out = out + self.shortcut(x)
        return F.relu(out)


class ResNet18(nn.Module):
    """The material's ResNet for CIFAR (003 §4.3, there called ``ResNet18Mini``).

    Stem: 7x7 convolution with stride 2 and BatchNorm, no max pooling.  By default only
    the two stages the material writes (64 and 128 channels, two BasicBlocks each), so
    despite its name it has 10 weighted layers, not 18, and 684,362 parameters for 10
    classes.  ``stages=4`` adds the 256- and 512-channel stages of a real ResNet-18; with
    ``num_classes=1000`` its parameter count equals torchvision's ``resnet18`` (11,689,512),
    whose only other difference is a parameterless max pooling after the stem.
    """

    def __init__(self, num_classes: int = 10, stages: int = 2):
        super().__init__()
        if stages not in (1, 2, 3, 4):
            raise ValueError(f"stages must be 1..4, got {stages}")
        widths = (64, 128, 256, 512)[:stages]
        self.in_channels = 64
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        for index, channels in enumerate(widths, start=1):
            stride = 1 if index == 1 else 2
            setattr(self, f"layer{index}", self._make_layer(channels, 2, stride))
        self.stages = stages
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(widths[-1], num_classes)

    def _make_layer(self, channels: int, num_blocks: int, stride: int) -> nn.Sequential:
        strides = [stride] + [1] * (num_blocks - 1)
        layers = []
        for block_stride in strides:
            layers.append(BasicBlock(self.in_channels, channels, block_stride))
            self.in_channels = channels
        return nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.relu(self.bn1(self.conv1(x)))
        for index in range(1, self.stages + 1):
            out = getattr(self, f"layer{index}")(out)
        out = self.avgpool(out)
        out = torch.flatten(out, 1)
        return self.fc(out)


ResNet18Mini = ResNet18


class CheckpointedBlock(nn.Module):
    """Wraps ``block`` so its activations are recomputed in backward (002 §5.1).

    Uses ``torch.utils.checkpoint.checkpoint(..., use_reentrant=False)``: recent torch
    wants ``use_reentrant`` passed explicitly, and the non-reentrant variant also gives
    the block's parameters gradients when the input itself does not require grad.
    Without grad mode (inference) checkpoint is skipped: there is nothing to save.
    """

    def __init__(self, block: nn.Module):
        super().__init__()
        self.block = block

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not torch.is_grad_enabled():
            return self.block(x)
        return checkpoint(self.block, x, use_reentrant=False)


def init_weights(module: nn.Module) -> nn.Module:
    """The material's initialisation (002 §5.2), applied to every submodule.

    Conv2d: ``kaiming_normal_(mode="fan_out", nonlinearity="relu")``, bias 0;
    Linear: weight ~ N(0, 0.01), bias 0.  Other modules keep their defaults.
    Returns ``module`` for chaining.
    """
    for m in module.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            if m.bias is not None:
                nn.init.constant_(m.bias, 0)
        elif isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, 0, 0.01)
            if m.bias is not None:
                nn.init.constant_(m.bias, 0)
    return module
