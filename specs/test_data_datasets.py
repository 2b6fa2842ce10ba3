"""Data: datasets built offline — an np.memmap-backed dataset over a file the spec writes,
the material's CIFAR10Mini pipeline, torchvision's CIFAR10 over CIFAR-format files written
here (nothing is downloaded), FakeData and ImageFolder.

Sources: 002 §2.2, §4.2; 003 §4.2.
"""
import pickle

import numpy as np
import pytest
import torch
from torch.utils.data import DataLoader

from torchclaims.optional import need

from aliasing import storage_nbytes

torchvision = need("torchvision")
from PIL import Image
from torchvision import transforms
from torchvision.datasets import CIFAR10, FakeData, ImageFolder

MATERIAL_MEAN = (0.4914, 0.4822, 0.4465)
MATERIAL_STD = (0.2023, 0.1994, 0.2010)


def write_images(path, n, seed=0):
    """``n`` random 32x32x3 uint8 images, C order, as a raw file; returns the array."""
    images = np.random.default_rng(seed).integers(0, 256, size=(n, 32, 32, 3), dtype=np.uint8)
    images.tofile(path)
    return images


# --- np.memmap --------------------------------------------------------------------------

@pytest.mark.claim("data.memmap-lazy-loading")
def test_memmap_dataset_reads_the_file_lazily_and_read_only(ref, tmp_path):
    """Material: np.memmap(dtype='uint8', mode='r', shape=(1000, 32, 32, 3)) maps the file.
    True: the data is a read-only np.memmap; each sample equals the bytes written."""
    path = tmp_path / "images.dat"
    images = write_images(path, 1000)
    ds = ref.data.MemmapDataset(path, (1000, 32, 32, 3), np.uint8)
    assert isinstance(ds.data, np.memmap), f"dataset storage is {type(ds.data).__name__}, expected np.memmap"
    assert not ds.data.flags.writeable, "mode='r' memmap is writeable"
    assert len(ds) == 1000
    for i in (0, 517, 999, -1):
        torch.testing.assert_close(ds[i], torch.from_numpy(images[i]))


@pytest.mark.claim("data.memmap-lazy-loading")
@pytest.mark.parametrize("n, batch", [(0, 4), (1, 4), (7, 3)])
def test_memmap_dataset_batches_match_the_file(ref, tmp_path, n, batch):
    """Material: a memmap-backed Dataset feeds the DataLoader.
    True: batches concatenate back to the file's records; targets come back as int64."""
    path = tmp_path / "images.dat"
    images = write_images(path, n) if n else np.zeros((0, 32, 32, 3), dtype=np.uint8)
    if not n:
        path.write_bytes(b"")
    targets = list(range(n))
    ds = ref.data.MemmapDataset(path, (n, 32, 32, 3), np.uint8, targets=targets) if n else None
    if ds is None:  # np.memmap refuses an empty file; the dataset must still report 0 records
        assert len(ref.data.MemmapDataset(path, (0, 32, 32, 3), np.uint8)) == 0
        return
    xs, ys = zip(*DataLoader(ds, batch_size=batch))
    torch.testing.assert_close(torch.cat(xs), torch.from_numpy(images))
    torch.testing.assert_close(torch.cat(ys), torch.arange(n))


@pytest.mark.claim("data.memmap-lazy-loading")
def test_memmap_dataset_rejects_out_of_range_indices(ref, tmp_path):
    """Material: __len__ matches the memmap and out-of-range indexing raises.
    True: index len and -len-1 raise IndexError."""
    path = tmp_path / "images.dat"
    write_images(path, 3)
    ds = ref.data.MemmapDataset(path, (3, 32, 32, 3), np.uint8)
    for index in (3, -4):
        with pytest.raises(IndexError):
            ds[index]


@pytest.mark.slow
@pytest.mark.claim("data.memmap-lazy-loading")
def test_memmap_dataset_works_with_worker_processes(ref, tmp_path):
    """Material: the memmap dataset is used with num_workers=2.
    True: two workers return the same batches as the main process."""
    try:
        import pytest_socket  # workers pass batches over AF_UNIX sockets
        pytest_socket.socket_allow_hosts(["127.0.0.1", "localhost", "::1"], allow_unix_socket=True)
    except ImportError:
        pass
    path = tmp_path / "images.dat"
    images = write_images(path, 24)
    ds = ref.data.MemmapDataset(path, (24, 32, 32, 3), np.uint8)
    batches = list(DataLoader(ds, batch_size=5, num_workers=2, timeout=30))
    torch.testing.assert_close(torch.cat(batches), torch.from_numpy(images))


MINI_SHAPE = (1000, 32, 32, 3)  # the material's memmap of CIFAR10Mini (003 §4.2), uint8


def _eager_load_bytes(ref, tmp_path, transform=None):
    """Bytes of torch storage held once the material's 1000 images are all loaded eagerly
    through the material's Dataset and a DataLoader (``transform`` as in its pipeline)."""
    path = tmp_path / "images.dat"
    write_images(path, MINI_SHAPE[0])
    ds = ref.data.MemmapDataset(path, MINI_SHAPE, np.uint8, transform=transform)
    batches = list(DataLoader(ds, batch_size=250))
    return sum(storage_nbytes(b) for b in batches), batches


@pytest.mark.claim("data.memmap-memory-figures")
def test_the_whole_mini_dataset_loaded_eagerly_takes_megabytes(ref, tmp_path):
    """Material: memmap cuts memory for the 1000 images from 1.2 GB to 20 MB.
    True: all 1000 images loaded into torch take 3,072,000 bytes as uint8 and 12,288,000 as
    float32 after ToTensor: an eager load is megabytes, nowhere near 1.2 GB."""
    raw, batches = _eager_load_bytes(ref, tmp_path)
    elements = int(np.prod(MINI_SHAPE))
    assert [b.dtype for b in batches] == [torch.uint8] * 4 and raw == elements, (
        f"uint8 batches hold {raw} bytes, expected one byte per value ({elements}) [DataLoader over the memmap]")
    as_float, batches = _eager_load_bytes(ref, tmp_path, transforms.ToTensor())
    assert batches[0].dtype == torch.float32 and as_float == 4 * elements, (
        f"ToTensor batches hold {as_float} bytes, expected {4 * elements} (float32)")
    assert as_float < 1.2e9 / 50, f"eager load {as_float} bytes is not far below the material's 1.2 GB"
    assert raw < 20e6, f"the whole uint8 file is {raw} bytes, expected less than the material's 20 MB"


@pytest.mark.claim("data.memmap-memory-figures", as_written=True)
def test_as_written_eager_loading_the_mini_dataset_takes_over_a_gigabyte(ref, tmp_path):
    """Material: without memmap the 1000 images occupy about 1.2 GB."""
    as_float, _ = _eager_load_bytes(ref, tmp_path, transforms.ToTensor())
    assert as_float >= 1e9, f"the eagerly loaded images hold {as_float} bytes, not about 1.2 GB"


# --- the CIFAR10Mini pipeline of 003 §4.2 ------------------------------------------------

def materials_train_transform():
    return transforms.Compose([
        transforms.RandomHorizontalFlip(p=0.5),
        transforms.ToTensor(),
        transforms.Normalize(mean=list(MATERIAL_MEAN), std=list(MATERIAL_STD)),
    ])


@pytest.mark.filterwarnings("ignore:The given NumPy array is not writable")
@pytest.mark.claim("data.memmap-pipeline-example")
def test_materials_pipeline_fails_on_memmap_rows_when_the_flip_fires(ref, tmp_path):
    """Material: flip -> ToTensor -> Normalize on the memmap's uint8 rows gives training tensors.
    True: the rows are numpy arrays; whenever the flip fires it raises TypeError."""
    path = tmp_path / "images.dat"
    write_images(path, 16)
    data = np.memmap(path, dtype=np.uint8, mode="r", shape=(16, 32, 32, 3))
    assert isinstance(data[0], np.ndarray), f"a memmap row is {type(data[0]).__name__}, expected a numpy array"
    always_flip = transforms.Compose([transforms.RandomHorizontalFlip(p=1.0), transforms.ToTensor()])
    with pytest.raises(TypeError, match="PIL Image"):
        always_flip(data[0])
    transform = materials_train_transform()
    outcomes = []
    for i in range(400):
        try:
            transform(data[i % 16])
            outcomes.append("ok")
        except TypeError:
            outcomes.append("TypeError")
    share = outcomes.count("TypeError") / len(outcomes)
    assert 0.4 < share < 0.6, f"{share:.0%} of 400 samples through the material's pipeline failed, expected about half"
    ds = ref.data.MemmapDataset(path, (16, 32, 32, 3), np.uint8, targets=[0] * 16, transform=transform)
    with pytest.raises(TypeError, match="PIL Image"):
        for _ in DataLoader(ds, batch_size=4, shuffle=True):
            pass  # the first epoch stops at the first batch with a fired flip


@pytest.mark.claim("data.memmap-pipeline-example")
def test_converting_before_the_flip_fixes_the_pipeline(ref, tmp_path):
    """Material: the pipeline yields normalized float32 (3, 32, 32) tensors.
    True: it does once the array becomes a PIL image (or tensor) before the flip."""
    path = tmp_path / "images.dat"
    images = write_images(path, 16)
    plain = transforms.Normalize(MATERIAL_MEAN, MATERIAL_STD)(
        torch.from_numpy(images).permute(0, 3, 1, 2).float() / 255)
    to_tensor_first = transforms.Compose([
        transforms.ToTensor(), transforms.RandomHorizontalFlip(p=0.5),
        transforms.Normalize(mean=list(MATERIAL_MEAN), std=list(MATERIAL_STD))])
    for fixed in (transforms.Compose([Image.fromarray, materials_train_transform()]), to_tensor_first):
        ds = ref.data.MemmapDataset(path, (16, 32, 32, 3), np.uint8, targets=[i % 10 for i in range(16)],
                                    transform=fixed)
        xb, yb = next(iter(DataLoader(ds, batch_size=16)))
        assert xb.shape == (16, 3, 32, 32) and xb.dtype == torch.float32, f"batch {tuple(xb.shape)} {xb.dtype}"
        for i in range(16):  # each sample is the normalized image, flipped or not
            assert torch.allclose(xb[i], plain[i], atol=1e-5) or torch.allclose(xb[i], plain[i].flip(-1), atol=1e-5)


@pytest.mark.filterwarnings("ignore:The given NumPy array is not writable")
@pytest.mark.claim("data.memmap-pipeline-example", as_written=True, raises=TypeError, match=r"img should be PIL Image")
def test_as_written_materials_pipeline_trains_on_memmap_rows(tmp_path):
    """Material: CIFAR10Mini with flip -> ToTensor -> Normalize yields a batch of float32 tensors."""
    path = tmp_path / "images.dat"
    write_images(path, 16)
    data = np.memmap(path, dtype=np.uint8, mode="r", shape=(16, 32, 32, 3))
    transform = materials_train_transform()
    batch = torch.stack([transform(data[i]) for i in range(16)])
    assert batch.shape == (16, 3, 32, 32)


# --- torchvision datasets, offline ------------------------------------------------------

def write_cifar10_batches(root, per_batch=4, seed=0):
    """CIFAR-10's python format under root/cifar-10-batches-py; returns the train images (HWC)."""
    folder = root / "cifar-10-batches-py"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(seed)
    train = []
    names = [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]
    for name in names:
        data = rng.integers(0, 256, size=(per_batch, 3 * 32 * 32), dtype=np.uint8)
        labels = [int(v) for v in rng.integers(0, 10, size=per_batch)]
        with open(folder / name, "wb") as f:
            pickle.dump({"data": data, "labels": labels}, f)
        if name != "test_batch":
            train.append((data.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1), labels))
    with open(folder / "batches.meta", "wb") as f:
        pickle.dump({"label_names": [f"class{i}" for i in range(10)]}, f)
    return np.concatenate([t[0] for t in train]), sum((t[1] for t in train), [])


@pytest.fixture
def offline_cifar10(tmp_path, monkeypatch):
    """CIFAR-format files written here; md5 checks answer yes (the files are not the real ones)."""
    images, labels = write_cifar10_batches(tmp_path)
    monkeypatch.setattr("torchvision.datasets.cifar.check_integrity", lambda *args, **kwargs: True)
    return tmp_path, images, labels


@pytest.mark.claim("data.cifar10-returns-pil")
def test_cifar10_returns_pil_images_and_int_labels(offline_cifar10):
    """Material: CIFAR10 gives PIL images; the model needs float32 tensors.
    True: (PIL RGB 32x32, int); the pixels are the stored HWC array."""
    root, images, labels = offline_cifar10
    ds = CIFAR10(root=str(root), train=True, download=False)
    assert len(ds) == 20
    image, label = ds[3]
    assert isinstance(image, Image.Image) and image.mode == "RGB" and image.size == (32, 32), (
        f"CIFAR10 sample is {type(image).__name__} {getattr(image, 'mode', '')}, expected a PIL RGB image")
    assert type(label) is int and label == labels[3]
    np.testing.assert_array_equal(np.asarray(image), images[3])


@pytest.mark.claim("data.cifar10-returns-pil")
def test_pil_samples_need_totensor_before_batching(offline_cifar10):
    """Material: Compose with ToTensor turns the PIL images into float32 tensors.
    True: without it default_collate raises TypeError; with it batches are (N, 3, 32, 32) float32."""
    root, images, _ = offline_cifar10
    with pytest.raises(TypeError):
        next(iter(DataLoader(CIFAR10(root=str(root), train=True), batch_size=4)))
    ds = CIFAR10(root=str(root), train=True, transform=transforms.ToTensor())
    xb, yb = next(iter(DataLoader(ds, batch_size=4)))
    assert xb.shape == (4, 3, 32, 32) and xb.dtype == torch.float32 and yb.dtype == torch.int64
    torch.testing.assert_close(xb, torch.from_numpy(images[:4]).permute(0, 3, 1, 2).float() / 255)


@pytest.mark.claim("data.cifar10-returns-pil")
def test_fakedata_and_imagefolder_also_return_pil_images(tmp_path):
    """Material: torchvision datasets hand out PIL images.
    True: FakeData and ImageFolder (over PNGs written here) do too; classes are sorted folder names."""
    image, label = FakeData(size=3, image_size=(3, 8, 10), num_classes=4)[0]
    assert isinstance(image, Image.Image) and image.size == (10, 8), f"FakeData gave {type(image).__name__}"
    assert 0 <= int(label) < 4
    rng = np.random.default_rng(0)
    for cls in ("truck", "airplane", "cat"):
        (tmp_path / cls).mkdir()
        for k in range(2):
            Image.fromarray(rng.integers(0, 256, (6, 6, 3), dtype=np.uint8)).save(tmp_path / cls / f"{k}.png")
    folder = ImageFolder(str(tmp_path))
    assert folder.class_to_idx == {"airplane": 0, "cat": 1, "truck": 2}, f"class_to_idx {folder.class_to_idx}"
    image, label = folder[len(folder) - 1]
    assert isinstance(image, Image.Image) and image.mode == "RGB" and label == 2


@pytest.mark.claim("data.cifar10-manual-download-folder")
def test_cifar10_reads_root_slash_cifar_10_batches_py(offline_cifar10):
    """Material: unpack the archive into ./data/cifar-10-batches-py and use root='./data'.
    True: that is CIFAR10's base_folder; with the files there, download=False loads them."""
    root, _, _ = offline_cifar10
    assert CIFAR10.base_folder == "cifar-10-batches-py"
    assert len(CIFAR10(root=str(root), train=False, download=False)) == 4


@pytest.mark.claim("data.cifar10-manual-download-folder")
def test_cifar10_without_the_folder_refuses_to_load(tmp_path):
    """Material: without the unpacked folder the dataset must be downloaded.
    True: download=False and no files raise RuntimeError('Dataset not found or corrupted')."""
    with pytest.raises(RuntimeError, match="Dataset not found or corrupted"):
        CIFAR10(root=str(tmp_path), train=True, download=False)


@pytest.mark.claim("data.cifar10-manual-download-folder")
def test_cifar10_checks_the_md5_of_the_files_it_finds(tmp_path):
    """Material: the unpacked archive in ./data/cifar-10-batches-py is used as is.
    True: with download=False the files are verified against CIFAR-10's md5 sums, nothing is fetched:
    files of the right names but other bytes are refused as corrupted."""
    write_cifar10_batches(tmp_path)
    with pytest.raises(RuntimeError, match="Dataset not found or corrupted"):
        CIFAR10(root=str(tmp_path), train=True, download=False)
    assert all(len(md5) == 32 for _, md5 in CIFAR10.train_list + CIFAR10.test_list)
