"""`tf.keras.applications`: canned architectures with pre-trained weights (Keras 2.15's layer
names and weight order, so Keras' ImageNet weight files load), each with its module's
`preprocess_input` and `decode_predictions`.

ImageNet weights are downloaded with `tf.keras.utils.get_file` (Keras' URLs and hashes) into
`~/.keras/models`; `weights=<path>` loads a local Keras HDF5 weight file.
"""

from torchestimator.keras.applications import (
    densenet,
    efficientnet,
    imagenet_utils,
    mobilenet,
    mobilenet_v2,
    resnet,
    resnet50,
    resnet_v2,
    vgg16,
    vgg19,
)
from torchestimator.keras.applications._densenet import DenseNet121, DenseNet169, DenseNet201
from torchestimator.keras.applications._efficientnet import (
    EfficientNetB0,
    EfficientNetB1,
    EfficientNetB2,
    EfficientNetB3,
    EfficientNetB4,
    EfficientNetB5,
    EfficientNetB6,
    EfficientNetB7,
)
from torchestimator.keras.applications._mobilenet import MobileNet
from torchestimator.keras.applications._mobilenet_v2 import MobileNetV2
from torchestimator.keras.applications._resnet import (
    ResNet50,
    ResNet50V2,
    ResNet101,
    ResNet101V2,
    ResNet152,
    ResNet152V2,
)
from torchestimator.keras.applications._vgg import VGG16, VGG19

__all__ = [
    "DenseNet121", "DenseNet169", "DenseNet201", "EfficientNetB0", "EfficientNetB1",
    "EfficientNetB2", "EfficientNetB3", "EfficientNetB4", "EfficientNetB5", "EfficientNetB6",
    "EfficientNetB7", "MobileNet", "MobileNetV2", "ResNet101", "ResNet101V2", "ResNet152",
    "ResNet152V2", "ResNet50", "ResNet50V2", "VGG16", "VGG19", "densenet", "efficientnet",
    "imagenet_utils", "mobilenet", "mobilenet_v2", "resnet", "resnet50", "resnet_v2", "vgg16",
    "vgg19",
]
