"""`tf.keras.datasets`: the small datasets Keras downloads (`mnist`, `fashion_mnist`, `cifar10`,
`cifar100`, `imdb`, `reuters`, `boston_housing`), each a module with `load_data()`.

Files come through `tf.keras.utils.get_file` from Keras 2.15's origins and are checked against
its hashes; pickled parts (CIFAR batches, the object arrays of `imdb.npz`/`reuters.npz`) are
read by a restricted unpickler that never runs code from the file.
"""

from torchestimator.keras.datasets import (
    boston_housing,
    cifar10,
    cifar100,
    fashion_mnist,
    imdb,
    mnist,
    reuters,
)

__all__ = ["boston_housing", "cifar10", "cifar100", "fashion_mnist", "imdb", "mnist", "reuters"]
