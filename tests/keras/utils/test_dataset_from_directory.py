"""tf.keras.utils.image_dataset_from_directory / text_dataset_from_directory: Keras 2.15's
class order, file order (np.random.RandomState(seed) shuffle), splits, shapes and messages."""

import os

import numpy as np
import pytest
import torch

import torchestimator as tf

Image = pytest.importorskip("PIL.Image")

utils = tf.keras.utils


def _write_images(root, counts, size=(10, 20)):
    """counts: {class_name: n}; files cycle through PNG, JPEG, BMP and GIF."""
    formats = [("png", "PNG"), ("jpg", "JPEG"), ("bmp", "BMP"), ("gif", "GIF")]
    for label, (name, n) in enumerate(counts.items()):
        os.makedirs(root / name, exist_ok=True)
        for i in range(n):
            ext, fmt = formats[i % len(formats)]
            array = np.full(size + (3,), 40 * label + i, "uint8")
            Image.fromarray(array).save(root / name / f"img_{i:02d}.{ext}", fmt)
    (root / "notes.txt").write_text("ignored: not an image in a class folder")


def _keras_order(root, counts, exts, seed):
    """What Keras's index_directory gives: sorted classes, sorted files, then one shuffle."""
    paths, labels = [], []
    for label, name in enumerate(sorted(counts)):
        for fname in sorted(os.listdir(root / name)):
            if fname.lower().endswith(exts):
                paths.append(os.path.join(str(root), name, fname))
                labels.append(label)
    np.random.RandomState(seed).shuffle(paths)
    labels = np.asarray(labels, "int32")
    np.random.RandomState(seed).shuffle(labels)
    return paths, labels


IMAGE_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")


def test_image_dataset_classes_order_shapes_and_messages(tmp_path, capsys):
    counts = {"dogs": 5, "cats": 4}
    _write_images(tmp_path, counts)
    ds = utils.image_dataset_from_directory(str(tmp_path), image_size=(8, 6), batch_size=4,
                                            seed=7)
    assert "Found 9 files belonging to 2 classes." in capsys.readouterr().out
    assert ds.class_names == ["cats", "dogs"]
    paths, labels = _keras_order(tmp_path, counts, IMAGE_FORMATS, 7)
    assert ds.file_paths == paths
    batches = list(ds)
    assert [tuple(x.shape) for x, _ in batches] == [(4, 8, 6, 3), (4, 8, 6, 3), (1, 8, 6, 3)]
    x, y = batches[0]
    assert x.dtype == torch.float32 and y.dtype == torch.int32
    all_labels = torch.cat([y for _, y in batches]).numpy()
    assert sorted(all_labels.tolist()) == sorted(labels.tolist())


def test_image_dataset_unshuffled_matches_files(tmp_path):
    counts = {"a": 3, "b": 2}
    _write_images(tmp_path, counts, size=(4, 4))
    ds = utils.image_dataset_from_directory(str(tmp_path), image_size=(4, 4), shuffle=False,
                                            batch_size=None)
    expected = [os.path.join(str(tmp_path), c, f) for c in "ab"
                for f in sorted(os.listdir(tmp_path / c))]
    assert ds.file_paths == expected
    elements = list(ds)
    assert [int(y) for _, y in elements] == [0, 0, 0, 1, 1]
    # Pixel values survive decoding (the first file of class b is a lossless PNG).
    x, _ = elements[3]
    assert x.shape == (4, 4, 3)
    np.testing.assert_allclose(x.numpy(), np.full((4, 4, 3), 40.0))  # list(ds): on the device


def test_image_dataset_validation_split_is_complementary(tmp_path, capsys):
    counts = {"x": 7, "y": 6, "z": 4}
    _write_images(tmp_path, counts, size=(4, 4))
    kwargs = dict(image_size=(4, 4), seed=1337, validation_split=0.25, batch_size=5)
    train = utils.image_dataset_from_directory(str(tmp_path), subset="training", **kwargs)
    val = utils.image_dataset_from_directory(str(tmp_path), subset="validation", **kwargs)
    out = capsys.readouterr().out
    assert "Using 13 files for training." in out and "Using 4 files for validation." in out
    paths, _ = _keras_order(tmp_path, counts, IMAGE_FORMATS, 1337)
    assert train.file_paths == paths[:-4] and val.file_paths == paths[-4:]
    assert not set(train.file_paths) & set(val.file_paths)
    assert sum(int(x.shape[0]) for x, _ in train) == 13
    assert sum(int(x.shape[0]) for x, _ in val) == 4

    both = utils.image_dataset_from_directory(str(tmp_path), subset="both", **kwargs)
    assert isinstance(both, list) and len(both) == 2
    assert both[0].file_paths == train.file_paths and both[1].file_paths == val.file_paths
    assert both[1].class_names == ["x", "y", "z"]


def test_image_dataset_label_modes_and_color_modes(tmp_path):
    _write_images(tmp_path, {"neg": 2, "pos": 3}, size=(6, 6))
    binary = utils.image_dataset_from_directory(str(tmp_path), image_size=(3, 3),
                                                label_mode="binary", color_mode="grayscale",
                                                shuffle=False)
    x, y = next(iter(binary))
    assert x.shape == (5, 3, 3, 1) and y.shape == (5, 1) and y.dtype == torch.float32
    assert y[:, 0].tolist() == [0.0, 0.0, 1.0, 1.0, 1.0]
    cat = utils.image_dataset_from_directory(str(tmp_path), image_size=(3, 3),
                                             label_mode="categorical", color_mode="rgba",
                                             shuffle=False)
    x, y = next(iter(cat))
    assert x.shape == (5, 3, 3, 4) and y.shape == (5, 2)
    assert y.argmax(-1).tolist() == [0, 0, 1, 1, 1]
    unlabeled = utils.image_dataset_from_directory(str(tmp_path), image_size=(3, 3),
                                                   label_mode=None, shuffle=False)
    batch = next(iter(unlabeled))
    assert isinstance(batch, torch.Tensor) and batch.shape == (5, 3, 3, 3)
    picked = utils.image_dataset_from_directory(str(tmp_path), image_size=(3, 3),
                                                class_names=["pos", "neg"], shuffle=False)
    assert picked.class_names == ["pos", "neg"]
    # TF 2.15: the files in sorted-folder order (neg, then pos), labelled by class_names' order
    assert next(iter(picked))[1].tolist() == [1, 1, 0, 0, 0]
    with pytest.raises(ValueError, match=r"did not match the names of the subdirectories.*"
                                         r"Expected: \['neg', 'pos'\], but received: \['pos'\]"):
        utils.image_dataset_from_directory(str(tmp_path), class_names=["pos"])


def test_image_dataset_explicit_labels_and_crop_to_aspect_ratio(tmp_path):
    os.makedirs(tmp_path / "flat")
    wide = np.zeros((10, 20, 3), "uint8")
    wide[:, 5:15] = 255
    for i in range(3):
        Image.fromarray(wide).save(tmp_path / "flat" / f"{i}.png")
    ds = utils.image_dataset_from_directory(str(tmp_path), labels=[2, 0, 1], image_size=(4, 4),
                                            shuffle=False, crop_to_aspect_ratio=True)
    assert ds.class_names == [0, 1, 2]
    x, y = next(iter(ds))
    assert y.tolist() == [2, 0, 1]
    assert torch.allclose(x, torch.full_like(x, 255.0))
    squashed = next(iter(utils.image_dataset_from_directory(
        str(tmp_path), labels=None, image_size=(4, 4), shuffle=False)))
    assert squashed.min() == 0.0


def test_image_dataset_argument_errors(tmp_path):
    _write_images(tmp_path, {"a": 2, "b": 2, "c": 1}, size=(4, 4))
    d = str(tmp_path)
    with pytest.raises(ValueError, match="If `subset` is set, `validation_split` must be set"):
        utils.image_dataset_from_directory(d, subset="training", seed=1)
    with pytest.raises(ValueError, match="If `subset` is set, `validation_split` must be set"):
        utils.image_dataset_from_directory(d, validation_split=0.2, seed=1)
    with pytest.raises(ValueError, match="you must provide a `seed` argument"):
        utils.image_dataset_from_directory(d, validation_split=0.2, subset="training")
    with pytest.raises(ValueError, match="`validation_split` must be between 0 and 1"):
        utils.image_dataset_from_directory(d, validation_split=2, subset="training", seed=1)
    with pytest.raises(ValueError, match='`subset` must be either "training"'):
        utils.image_dataset_from_directory(d, validation_split=0.2, subset="test", seed=1)
    with pytest.raises(ValueError, match="there must be exactly 2 class_names"):
        utils.image_dataset_from_directory(d, label_mode="binary")
    with pytest.raises(ValueError, match="`label_mode` argument must be one of"):
        utils.image_dataset_from_directory(d, label_mode="sparse")
    with pytest.raises(ValueError, match="`color_mode` must be one of"):
        utils.image_dataset_from_directory(d, color_mode="cmyk")
    with pytest.raises(ValueError, match="Argument `interpolation` should be one of"):
        utils.image_dataset_from_directory(d, interpolation="hamming")
    with pytest.raises(ValueError, match="`labels` argument should be a list/tuple"):
        utils.image_dataset_from_directory(d, labels="names")
    with pytest.raises(ValueError, match="You can only pass `class_names` if"):
        utils.image_dataset_from_directory(d, labels=[0, 1, 0, 1, 0], class_names=["a"])
    with pytest.raises(ValueError, match="did not match the names of the subdirectories"):
        utils.image_dataset_from_directory(d, class_names=["a", "zebra"])
    with pytest.raises(ValueError, match="Expected the lengths of `labels` to match"):
        utils.image_dataset_from_directory(d, labels=[0, 1])
    with pytest.raises(TypeError, match="Unknown keywords argument"):
        utils.image_dataset_from_directory(d, colour="rgb")
    empty = tmp_path / "empty" / "only"
    os.makedirs(empty)
    with pytest.raises(ValueError, match="No images found in directory"):
        utils.image_dataset_from_directory(str(tmp_path / "empty"))


def _write_texts(root, texts):
    for name, items in texts.items():
        os.makedirs(root / name, exist_ok=True)
        for i, text in enumerate(items):
            (root / name / f"t{i}.txt").write_text(text, encoding="utf-8")
        (root / name / "skip.md").write_text("not a .txt file")


def test_text_dataset_order_labels_and_max_length(tmp_path, capsys):
    texts = {"pos": ["great", "fine", "lovely"], "neg": ["awful", "héllo wörld"]}
    _write_texts(tmp_path, texts)
    ds = utils.text_dataset_from_directory(str(tmp_path), batch_size=2, shuffle=False)
    assert "Found 5 files belonging to 2 classes." in capsys.readouterr().out
    assert ds.class_names == ["neg", "pos"]
    batches = list(ds)
    strings = [s for x, _ in batches for s in x.tolist()]
    assert strings == ["awful", "héllo wörld", "great", "fine", "lovely"]
    assert torch.cat([y for _, y in batches]).tolist() == [0, 0, 1, 1, 1]
    short = utils.text_dataset_from_directory(str(tmp_path), batch_size=None, shuffle=False,
                                              max_length=2, label_mode=None)
    # max_length counts bytes (TF's substr); "hé" is 3 bytes, so the cut "é" is dropped.
    assert list(short) == ["aw", "h", "gr", "fi", "lo"]


def test_text_dataset_split_matches_keras_shuffle(tmp_path, capsys):
    texts = {"a": [f"a{i}" for i in range(6)], "b": [f"b{i}" for i in range(5)]}
    _write_texts(tmp_path, texts)
    kwargs = dict(seed=3, validation_split=0.3, batch_size=None)
    train, val = utils.text_dataset_from_directory(str(tmp_path), subset="both", **kwargs)
    out = capsys.readouterr().out
    assert "Using 8 files for training." in out and "Using 3 files for validation." in out
    paths, labels = _keras_order(tmp_path, texts, (".txt",), 3)
    contents = [open(p, encoding="utf-8").read() for p in paths]
    assert [x for x, _ in val] == contents[-3:]  # validation keeps Keras's order
    assert [int(y) for _, y in val] == labels[-3:].tolist()
    assert sorted(x for x, _ in train) == sorted(contents[:-3])
    assert not {x for x, _ in train} & {x for x, _ in val}
    cat = utils.text_dataset_from_directory(str(tmp_path), label_mode="binary", shuffle=False,
                                            batch_size=11)
    assert next(iter(cat))[1].shape == (11, 1)
    with pytest.raises(ValueError, match="No text files found in directory"):
        utils.text_dataset_from_directory(str(tmp_path / "a"))
    with pytest.raises(ValueError, match="If `subset` is set, `validation_split` must be set"):
        utils.text_dataset_from_directory(str(tmp_path), subset="both", seed=1)
