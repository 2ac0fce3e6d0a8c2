"""`tf.keras.applications`: canned architectures with pre-trained weights (Keras 2.15's layer
names and weight order, so Keras' ImageNet weight files load), each with its module's
`preprocess_input` and `decode_predictions`.

ImageNet weights are downloaded with `tf.keras.utils.get_file` (Keras' URLs and hashes) into
`~/.keras/models`; `weights=<path>` loads a local Keras HDF5 weight file.
"""

from torchestimator.keras.applications import (
    convnext,
    densenet,
    efficientnet,
    efficientnet_v2,
    imagenet_utils,
    inception_resnet_v2,
    inception_v3,
    mobilenet,
    mobilenet_v2,
    mobilenet_v3,
    nasnet,
    regnet,
    resnet,
    resnet50,
    resnet_rs,
    resnet_v2,
    vgg16,
    vgg19,
    xception,
)
from torchestimator.keras.applications._convnext import (
    ConvNeXtBase,
    ConvNeXtLarge,
    ConvNeXtSmall,
    ConvNeXtTiny,
    ConvNeXtXLarge,
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
from torchestimator.keras.applications._efficientnet_v2 import (
    EfficientNetV2B0,
    EfficientNetV2B1,
    EfficientNetV2B2,
    EfficientNetV2B3,
    EfficientNetV2L,
    EfficientNetV2M,
    EfficientNetV2S,
)
from torchestimator.keras.applications._inception_resnet_v2 import InceptionResNetV2
from torchestimator.keras.applications._inception_v3 import InceptionV3
from torchestimator.keras.applications._mobilenet import MobileNet
from torchestimator.keras.applications._mobilenet_v2 import MobileNetV2
from torchestimator.keras.applications._mobilenet_v3 import MobileNetV3Large, MobileNetV3Small
from torchestimator.keras.applications._nasnet import NASNetLarge, NASNetMobile
from torchestimator.keras.applications._regnet import (
    RegNetX002,
    RegNetX004,
    RegNetX006,
    RegNetX008,
    RegNetX016,
    RegNetX032,
    RegNetX040,
    RegNetX064,
    RegNetX080,
    RegNetX120,
    RegNetX160,
    RegNetX320,
    RegNetY002,
    RegNetY004,
    RegNetY006,
    RegNetY008,
    RegNetY016,
    RegNetY032,
    RegNetY040,
    RegNetY064,
    RegNetY080,
    RegNetY120,
    RegNetY160,
    RegNetY320,
)
from torchestimator.keras.applications._resnet import (
    ResNet50,
    ResNet50V2,
    ResNet101,
    ResNet101V2,
    ResNet152,
    ResNet152V2,
)
from torchestimator.keras.applications._resnet_rs import (
    ResNetRS50,
    ResNetRS101,
    ResNetRS152,
    ResNetRS200,
    ResNetRS270,
    ResNetRS350,
    ResNetRS420,
)
from torchestimator.keras.applications._vgg import VGG16, VGG19
from torchestimator.keras.applications._xception import Xception

__all__ = [
    "DenseNet121", "DenseNet169", "DenseNet201", "EfficientNetB0", "EfficientNetB1",
    "EfficientNetB2", "EfficientNetB3", "EfficientNetB4", "EfficientNetB5", "EfficientNetB6",
    "EfficientNetB7", "MobileNet", "MobileNetV2", "ResNet101", "ResNet101V2", "ResNet152",
    "ResNet152V2", "ResNet50", "ResNet50V2", "VGG16", "VGG19", "densenet", "efficientnet",
    "imagenet_utils", "mobilenet", "mobilenet_v2", "resnet", "resnet50", "resnet_v2", "vgg16",
    "vgg19",
]
__all__ += ["ConvNeXtBase", "ConvNeXtLarge", "ConvNeXtSmall", "ConvNeXtTiny", "ConvNeXtXLarge",
            "convnext"]
__all__ += ["EfficientNetV2B0", "EfficientNetV2B1", "EfficientNetV2B2", "EfficientNetV2B3",
            "EfficientNetV2L", "EfficientNetV2M", "EfficientNetV2S", "efficientnet_v2"]
__all__ += ["InceptionResNetV2", "inception_resnet_v2"]
__all__ += ["InceptionV3", "MobileNetV3Large", "MobileNetV3Small", "Xception", "inception_v3",
            "mobilenet_v3", "xception"]
__all__ += ["RegNetX002", "RegNetX004", "RegNetX006", "RegNetX008", "RegNetX016", "RegNetX032",
            "RegNetX040", "RegNetX064", "RegNetX080", "RegNetX120", "RegNetX160", "RegNetX320",
            "RegNetY002", "RegNetY004", "RegNetY006", "RegNetY008", "RegNetY016", "RegNetY032",
            "RegNetY040", "RegNetY064", "RegNetY080", "RegNetY120", "RegNetY160", "RegNetY320",
            "regnet"]
__all__ += ["ResNetRS101", "ResNetRS152", "ResNetRS200", "ResNetRS270", "ResNetRS350",
            "ResNetRS420", "ResNetRS50", "resnet_rs"]
__all__ += ["NASNetLarge", "NASNetMobile", "nasnet"]
