"""Small synthetic stand-ins for the files TensorFlow's tutorials download.

Each writer puts its file under the exact name and in the exact layout the tutorial's
`tf.keras.utils.get_file` (or `load_data`) call expects, so that `get_file` finds it cached
and the example runs offline. Every data set carries a planted rule a model can learn.
"""

from __future__ import annotations

import hashlib
import io
import os
import tarfile
import zipfile

import numpy as np

from torchestimator.datasets import iris

FILLER = ("plot actor scene film story camera music script ending cast director moment "
          "character dialogue screen minute hour night city house friend family").split()


def _review(rng: np.random.Generator, word: str) -> str:
    words = [word if rng.random() < 0.3 else FILLER[rng.integers(len(FILLER))] for _ in range(120)]
    words[rng.integers(120)] = word  # at least one planted word
    words[5] += ","
    words[40] += ".<br /><br />"
    return " ".join(words).capitalize() + "!"


def write_imdb_archive(folder: str, per_class_train: int = 600, per_class_test: int = 150,
                       seed: int = 0) -> str:
    """Writes `aclImdb_v1.tar.gz` (members `aclImdb/{train,test}/{pos,neg}/*.txt` and
    `aclImdb/train/unsup/*.txt`): positive reviews plant "great", negative ones "terrible".
    Returns the archive's path."""
    rng = np.random.default_rng(seed)
    path = os.path.join(folder, "aclImdb_v1.tar.gz")
    with tarfile.open(path, "w:gz") as tar:
        def add(name: str, text: str) -> None:
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))

        for split, n in (("train", per_class_train), ("test", per_class_test)):
            for label, word in (("pos", "great"), ("neg", "terrible")):
                for i in range(n):
                    add(f"aclImdb/{split}/{label}/{i}_{8 if label == 'pos' else 2}.txt", _review(rng, word))
        for i in range(5):
            add(f"aclImdb/train/unsup/{i}_0.txt", _review(rng, "okay"))
        add("aclImdb/README", "Synthetic stand-in for the Large Movie Review Dataset.\n")
    return path


FLOWER_COLOURS = {  # class -> RGB base colour
    "daisy": (240, 240, 240),
    "dandelion": (230, 200, 20),
    "roses": (200, 20, 40),
    "sunflowers": (250, 140, 0),
    "tulips": (150, 40, 200),
}


def flower_image(rng: np.random.Generator, colour: tuple[int, int, int], size=(40, 48)):
    """A small noisy image of one base colour (a PIL Image)."""
    from PIL import Image

    pixels = np.asarray(colour, np.float64) + rng.normal(0, 25, size=(*size, 3))
    return Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))


def write_flower_archive(datasets_dir: str, per_class: int = 12, seed: int = 0) -> str:
    """Writes `flower_photos.tar` (a gzipped tar, like the real `flower_photos.tgz`) holding
    `flower_photos/<class>/*.jpg` whose classes differ by colour, and the single image the
    tutorial predicts on, `Red_sunflower` (a sunflower-coloured JPEG). Returns the archive's path."""
    rng = np.random.default_rng(seed)
    os.makedirs(datasets_dir, exist_ok=True)
    path = os.path.join(datasets_dir, "flower_photos.tar")
    with tarfile.open(path, "w:gz") as tar:
        for name, colour in FLOWER_COLOURS.items():
            for i in range(per_class):
                buf = io.BytesIO()
                flower_image(rng, colour).save(buf, format="JPEG")
                info = tarfile.TarInfo(f"flower_photos/{name}/{i}.jpg")
                info.size = buf.tell()
                buf.seek(0)
                tar.addfile(info, buf)
        licence = b"Synthetic images.\n"
        info = tarfile.TarInfo("flower_photos/LICENSE.txt")
        info.size = len(licence)
        tar.addfile(info, io.BytesIO(licence))
    flower_image(rng, FLOWER_COLOURS["sunflowers"], size=(60, 60)).save(
        os.path.join(datasets_dir, "Red_sunflower"), format="JPEG")
    return path


def write_iris_csvs(datasets_dir: str) -> tuple[str, str]:
    """Writes `iris_training.csv` (120 rows) and `iris_test.csv` (30 rows) from the bundled
    Iris data in TF's layout: a first line `<rows>,4,setosa,versicolor,virginica`, then
    `SepalLength,SepalWidth,PetalLength,PetalWidth,Species` rows. Returns the two paths."""
    (x_train, y_train), (x_test, y_test) = iris.load_data(test_fraction=0.2, seed=0)
    os.makedirs(datasets_dir, exist_ok=True)
    paths = []
    for name, x, y in (("iris_training.csv", x_train, y_train), ("iris_test.csv", x_test, y_test)):
        lines = [f"{len(x)},4,setosa,versicolor,virginica"]
        lines += [",".join(f"{v:.1f}" for v in row) + f",{int(label)}" for row, label in zip(x, y)]
        path = os.path.join(datasets_dir, name)
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        paths.append(path)
    return tuple(paths)


def _digits(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    labels = rng.integers(0, 10, size=n).astype(np.uint8)
    images = rng.integers(0, 60, size=(n, 28, 28)).astype(np.uint8)
    for i, label in enumerate(labels):
        row, col = divmod(int(label), 4)  # a bright 6x6 block at a place that names the digit
        images[i, 2 + 8 * row: 8 + 8 * row, 2 + 6 * col: 8 + 6 * col] = 255
    return images, labels


def write_mnist_npz(datasets_dir: str, n_train: int = 2000, n_test: int = 300, seed: int = 0) -> str:
    """Writes `mnist.npz` (`x_train`, `y_train`, `x_test`, `y_test`, uint8) whose digit is
    the position of a bright block; returns its sha256 hex digest."""
    rng = np.random.default_rng(seed)
    x_train, y_train = _digits(rng, n_train)
    x_test, y_test = _digits(rng, n_test)
    os.makedirs(datasets_dir, exist_ok=True)
    path = os.path.join(datasets_dir, "mnist.npz")
    np.savez(path, x_train=x_train, y_train=y_train, x_test=x_test, y_test=y_test)
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


PET_COLUMNS = ["Type", "Age", "Breed1", "Gender", "Color1", "Color2", "MaturitySize", "FurLength",
               "Vaccinated", "Sterilized", "Health", "Fee", "Description", "PhotoAmt", "AdoptionSpeed"]


def write_petfinder_zip(datasets_dir: str, rows: int = 3000, seed: int = 0) -> str:
    """Writes `petfinder_mini.zip` holding `petfinder-mini/petfinder-mini.csv` with the
    PetFinder.my mini columns. Planted rule: a pet is not adopted (`AdoptionSpeed` 4) exactly
    when it is not vaccinated or its fee is above 150. Returns the archive's path."""
    rng = np.random.default_rng(seed)
    choices = {
        "Type": ["Cat", "Dog"], "Breed1": ["Tabby", "Mixed Breed", "Domestic Short Hair"],
        "Gender": ["Male", "Female"], "Color1": ["Black", "Brown", "White"],
        "Color2": ["White", "Cream", "No Color"], "MaturitySize": ["Small", "Medium", "Large"],
        "FurLength": ["Short", "Medium", "Long"], "Vaccinated": ["Yes", "No"],
        "Sterilized": ["Yes", "No", "Not Sure"], "Health": ["Healthy", "Minor Injury"],
    }
    lines = [",".join(PET_COLUMNS)]
    for _ in range(rows):
        row = {name: values[rng.integers(len(values))] for name, values in choices.items()}
        row["Age"] = int(rng.integers(1, 8))
        row["Fee"] = int(rng.integers(0, 300))
        row["PhotoAmt"] = int(rng.integers(0, 10))
        row["Description"] = "A friendly pet"
        not_adopted = row["Vaccinated"] == "No" or row["Fee"] > 150
        row["AdoptionSpeed"] = 4 if not_adopted else int(rng.integers(0, 4))
        lines.append(",".join(str(row[c]) for c in PET_COLUMNS))
    os.makedirs(datasets_dir, exist_ok=True)
    path = os.path.join(datasets_dir, "petfinder_mini.zip")
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("petfinder-mini/petfinder-mini.csv", "\n".join(lines) + "\n")
    return path


def write_cats_and_dogs_zip(datasets_dir: str, per_class_train: int = 24, per_class_validation: int = 80,
                            seed: int = 0) -> str:
    """Writes `cats_and_dogs.zip` holding `cats_and_dogs_filtered/{train,validation}/{cats,dogs}/*.jpg`
    (the real archive's layout), cats dark and dogs with a bright square. Returns its path."""
    import zipfile

    from PIL import Image

    rng = np.random.default_rng(seed)
    os.makedirs(datasets_dir, exist_ok=True)
    path = os.path.join(datasets_dir, "cats_and_dogs.zip")
    with zipfile.ZipFile(path, "w") as archive:
        for split, count in (("train", per_class_train), ("validation", per_class_validation)):
            for label in ("cats", "dogs"):
                for i in range(count):
                    pixels = rng.uniform(0, 70, size=(64, 64, 3))
                    if label == "dogs":
                        pixels[16:48, 16:48] += 170
                    buf = io.BytesIO()
                    Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)).save(buf, format="JPEG")
                    archive.writestr(f"cats_and_dogs_filtered/{split}/{label}/{label[:-1]}.{i}.jpg", buf.getvalue())
    return path


def write_mobilenet_v2_weights(models_dir: str, alpha: float = 1.0, size: int = 160, seed: int = 0) -> str:
    """Writes a MobileNetV2 no-top weight file in Keras' HDF5 layout under the name
    `weights='imagenet'` looks for (`mobilenet_v2_weights_tf_dim_ordering_tf_kernels_<alpha>_<size>_no_top.h5`;
    Keras 2.15 gives it no file hash), with seeded random weights. Returns its path."""
    import h5py

    import torchestimator as tf

    tf.keras.utils.set_random_seed(seed)
    model = tf.keras.applications.MobileNetV2(input_shape=(size, size, 3), alpha=alpha, include_top=False,
                                              weights=None)
    # A pretrained network's batch-norm statistics match its activations; random weights with
    # the initial statistics (0 and 1) fade to nothing over 50 layers. One batch in training
    # mode with momentum 0 sets every moving mean and variance to that batch's.
    batch_norms = [layer for layer in model.layers if type(layer).__name__ == "BatchNormalization"]
    for layer in batch_norms:
        layer.momentum = 0.0
    images = np.random.default_rng(seed).uniform(-1, 1, size=(16, size, size, 3)).astype(np.float32)
    model(images, training=True)
    for layer in batch_norms:
        layer.momentum = 0.999
    os.makedirs(models_dir, exist_ok=True)
    path = os.path.join(models_dir, f"mobilenet_v2_weights_tf_dim_ordering_tf_kernels_{alpha}_{size}_no_top.h5")
    with h5py.File(path, "w") as f:
        layers = [layer for layer in model.layers if layer.weights]
        f.attrs["layer_names"] = [layer.name.encode() for layer in layers]
        f.attrs["backend"] = b"tensorflow"
        f.attrs["keras_version"] = b"2.15.0"
        for layer in layers:
            group = f.create_group(layer.name)
            names = [w.name for w in layer.weights]
            group.attrs["weight_names"] = [n.encode() for n in names]
            for name, value in zip(names, layer.get_weights()):
                group.create_dataset(name, data=value)
    return path
