"""A guard for the crafted-file suites: while a crafted file is loaded, it records every sign
that code from the file ran — a process started, a shell command, a socket opened, a file
written outside the directories the test allows, a module imported that the package's own load
path never imports — and fails the test naming each one.

    with crafted_guard(tmp_path) as guard:
        with pytest.raises(ValueError, match="..."):
            tf.keras.models.load_model(path)
    # leaving the block asserts nothing forbidden happened (guard.events lists what did)

`sys.addaudithook` cannot be removed, so one hook is installed for the process and records only
while a guard is active. New modules are found by comparing `sys.modules` before and after
(the audit "import" event does not fire for `importlib.import_module`).
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

#: Audit events that mean a process, a shell, a network connection or native code was started.
FORBIDDEN_EVENTS = frozenset({
    "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
    "subprocess.Popen", "pty.spawn", "socket.connect", "socket.bind", "ctypes.dlopen",
    "ctypes.dlsym", "webbrowser.open", "os.startfile", "shutil.rmtree", "os.remove",
    "os.unlink", "os.rename", "os.chmod", "urllib.Request",
})

#: Native libraries torch's own device queries open with ctypes (`torch.cuda.device_count()` reads
#: NVML, or AMD SMI on ROCm, on a CUDA build; `is_available()` too once
#: `PYTORCH_NVML_BASED_CUDA_CHECK=1` is set, which importing Lightning does): not code from a file.
TORCH_DEVICE_QUERY_LIBRARIES = frozenset({"libnvidia-ml.so.1", "libamd_smi.so"})

#: Module name prefixes a load path may import for the first time (the package, its
#: dependencies, and the standard library parts they use lazily).
ALLOWED_MODULE_PREFIXES = (
    "torchestimator", "torch", "numpy", "safetensors", "pyarrow", "google", "tensorboard",
    "sympy", "mpmath", "h5py", "json", "encodings", "zipfile", "zlib", "gzip", "bz2", "lzma",
    "_", "typing", "collections", "dataclasses", "functools", "itertools", "re", "sre",
    "struct", "math", "numbers", "decimal", "fractions", "copy", "weakref", "io", "abc",
    "enum", "contextlib", "warnings", "inspect", "ast", "dis", "opcode", "token", "tokenize",
    "linecache", "textwrap", "string", "operator", "hashlib", "hmac", "base64", "binascii",
    "uuid", "datetime", "time", "calendar", "locale", "codecs", "unicodedata", "pathlib",
    "fnmatch", "glob", "posixpath", "genericpath", "stat", "tempfile", "random", "bisect",
    "heapq", "array", "queue", "threading", "concurrent", "logging", "traceback", "types",
    "importlib", "pkgutil", "zipimport", "platform", "sysconfig", "filelock", "fsspec",
    "packaging", "typing_extensions", "jinja2", "markupsafe", "networkx", "ml_dtypes",
    "pyexpat", "xml", "email", "urllib", "http", "html", "shlex", "signal", "select",
    "selectors", "errno", "gc", "pprint", "reprlib", "keyword", "difflib", "statistics",
    "pickle", "copyreg", "marshal", "atexit", "builtins", "optree", "triton", "sitecustomize",
    "google_crc32c", "crc32c", "rich", "pygments", "markdown_it", "mdurl", "psutil",
)


@dataclass
class CraftedGuard:
    """What happened while the guard was active."""

    allowed_dirs: tuple[str, ...]
    events: list[str] = field(default_factory=list)
    new_modules: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        """Every forbidden thing that happened, as readable lines."""
        bad_modules = [m for m in self.new_modules if not m.startswith(ALLOWED_MODULE_PREFIXES)]
        return self.events + [f"imported module {m!r}" for m in bad_modules]


_ACTIVE: list[CraftedGuard] = []
_LOCK = threading.Lock()
_HOOK_INSTALLED = False


def _writes(mode: object, flags: object) -> bool:
    if isinstance(mode, str) and any(c in mode for c in "wax+"):
        return True
    return isinstance(flags, int) and bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))


def _inside(path: str, dirs: tuple[str, ...]) -> bool:
    real = os.path.realpath(path)
    return any(real == d or real.startswith(d + os.sep) for d in dirs)


def _torch_device_query(args: tuple) -> bool:
    """Whether a `ctypes.dlopen` is torch.cuda opening its device-query library (the library is
    one of `TORCH_DEVICE_QUERY_LIBRARIES` and the call comes from `torch/cuda/`)."""
    name = args[0] if args else None
    if not isinstance(name, str) or os.path.basename(name) not in TORCH_DEVICE_QUERY_LIBRARIES:
        return False
    frame = sys._getframe(2)
    for _ in range(8):
        if frame is None:
            return False
        if f"torch{os.sep}cuda{os.sep}" in frame.f_code.co_filename:
            return True
        frame = frame.f_back
    return False


def _hook(event: str, args: tuple) -> None:
    if not _ACTIVE:
        return
    guard = _ACTIVE[-1]
    if event in FORBIDDEN_EVENTS:
        if event in ("os.remove", "os.unlink", "os.rename", "os.chmod", "shutil.rmtree"):
            path = args[0] if args else None
            if isinstance(path, (str, bytes, os.PathLike)) and _inside(os.fsdecode(path), guard.allowed_dirs):
                return
        if event == "ctypes.dlopen" and _torch_device_query(args):
            return
        guard.events.append(f"audit event {event} {args!r:.200}")
    elif event == "open" and len(args) >= 3:
        path, mode, flags = args[0], args[1], args[2]
        if isinstance(path, (str, bytes, os.PathLike)) and _writes(mode, flags):
            if not _inside(os.fsdecode(path), guard.allowed_dirs):
                guard.events.append(f"opened {os.fsdecode(path)!r} for writing (mode {mode!r})")


def _install() -> None:
    global _HOOK_INSTALLED
    with _LOCK:
        if not _HOOK_INSTALLED:
            sys.addaudithook(_hook)
            _HOOK_INSTALLED = True


@contextlib.contextmanager
def crafted_guard(*allowed_dirs: str | os.PathLike, check: bool = True,
                  allow_tempdir: bool = False) -> Iterator[CraftedGuard]:
    """Records forbidden events while the block runs; with `check`, fails the test on leaving
    the block if any happened. Writes are allowed inside `allowed_dirs` only (and, with
    `allow_tempdir`, anywhere in the system's temporary directory)."""
    _install()
    dirs = tuple(os.path.realpath(os.fspath(d)) for d in allowed_dirs)
    if allow_tempdir:
        dirs += (os.path.realpath(tempfile.gettempdir()),)
    guard = CraftedGuard(allowed_dirs=dirs)
    before = set(sys.modules)
    _ACTIVE.append(guard)
    try:
        yield guard
    finally:
        _ACTIVE.remove(guard)
        guard.new_modules = sorted(set(sys.modules) - before)
    if check:
        problems = guard.problems()
        assert not problems, "loading a crafted file did something it must not:\n" + "\n".join(problems)
