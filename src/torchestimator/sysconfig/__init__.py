"""`tf.sysconfig`: build information (`get_build_info`: torch's CUDA/cuDNN versions), the
package's folders (`get_include`, `get_lib`), and TF's C++ build constants. Compiling against
TensorFlow's C++ headers (`get_compile_flags`, `get_link_flags`) is refused by name: custom
ops here are written with torch (torch.utils.cpp_extension builds C++/CUDA ones)."""

from __future__ import annotations

import os
import platform

import torch

from torchestimator._refused import refuse

CXX11_ABI_FLAG = int(torch.compiled_with_cxx11_abi())
CXX_VERSION = 201703
MONOLITHIC_BUILD = 0

_COMPILE = ("TensorFlow C++ headers and libraries are not part of torchestimator: build custom ops with "
            "torch.utils.cpp_extension (its include_paths() and library_paths())")
get_compile_flags = refuse("tf.sysconfig.get_compile_flags", _COMPILE)
get_link_flags = refuse("tf.sysconfig.get_link_flags", _COMPILE)


def get_build_info() -> dict:
    """Get a dictionary describing the build (TF's keys: `is_cuda_build`, `is_rocm_build`,
    `cuda_version`, `cudnn_version`, ...), from the installed torch."""
    cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
    return {
        "is_cuda_build": torch.version.cuda is not None,
        "is_rocm_build": getattr(torch.version, "hip", None) is not None,
        "is_tensorrt_build": False,
        "cuda_version": torch.version.cuda,
        "cudnn_version": None if cudnn is None else str(cudnn),
        "cpu_compiler": platform.python_compiler(),
        "torch_version": torch.__version__,
    }


def get_include() -> str:
    """The directory of torchestimator's package (TF's: its C++ header directory; there are no
    headers here, build C++ against torch's: torch.utils.cpp_extension.include_paths())."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def get_lib() -> str:
    """The directory of torchestimator's package (TF's: the directory holding libtensorflow)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


__all__ = ["CXX11_ABI_FLAG", "CXX_VERSION", "MONOLITHIC_BUILD", "get_build_info", "get_compile_flags",
           "get_include", "get_link_flags", "get_lib"]
