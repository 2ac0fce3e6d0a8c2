"""`tf.keras.utils.get_file` and `tf.keras.utils.Sequence`, as Keras 2.15's
`keras/src/utils/data_utils.py`.

`get_file` downloads with urllib (stdlib) into `~/.keras/<cache_subdir>` (or `$KERAS_HOME`,
or `cache_dir`; `/tmp/.keras` when that is not writable), writing to a temporary name in the
same folder and renaming it when complete, so an interrupted download leaves no file under
the final name. Archives are extracted only when no member would land outside the target
folder (absolute names, `..`, links pointing out): one such member refuses the whole archive.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import tarfile
import tempfile
import urllib.error
import urllib.request
import zipfile
from typing import Any
from urllib.parse import urlsplit

from torchestimator.keras._io_utils import print_msg
from torchestimator.keras.callbacks.progbar import Progbar

_CHUNK = 64 * 1024


class Sequence:
    """Base object for fitting to a sequence of data, such as a dataset.

    Every `Sequence` must implement the `__getitem__` and the `__len__` methods. If you want
    to modify your dataset between epochs, you may implement `on_epoch_end`. The method
    `__getitem__` should return a complete batch. `fit`, `evaluate` and `predict` read batches
    `0 .. len(seq) - 1` each epoch (in a shuffled order with `fit(shuffle=True)`) and call
    `on_epoch_end` after each epoch. With `workers > 1` (threads) or `use_multiprocessing=True`
    (processes, given a picklable copy of the Sequence each epoch), batches are read ahead, at
    most `max_queue_size` of them, and still arrive in index order.
    """

    def __getitem__(self, index: int) -> Any:
        """Gets batch at position `index`; returns a batch `x`, `(x, y)` or `(x, y, w)`."""
        raise NotImplementedError

    def __len__(self) -> int:
        """Number of batches in the Sequence."""
        raise NotImplementedError

    def on_epoch_end(self) -> None:
        """Method called at the end of every epoch."""

    def __iter__(self) -> Any:
        """Create a generator that iterates over the Sequence."""
        for i in range(len(self)):
            yield self[i]


# ---------------------------------------------------------------------------- hashing
def _resolve_hasher(algorithm: str, file_hash: str | None = None) -> Any:
    """Returns the hash constructor: `sha256` for 'sha256' (or 'auto' with a 64-character
    hash), else `md5` (Keras' `_resolve_hasher`)."""
    if algorithm == "sha256":
        return hashlib.sha256
    if algorithm == "auto" and file_hash is not None and len(file_hash) == 64:
        return hashlib.sha256
    if algorithm not in ("auto", "md5"):
        raise ValueError(f"Unknown hash_algorithm {algorithm!r}: use 'auto', 'sha256' or 'md5'.")
    return hashlib.md5


def _hash_file(fpath: str, algorithm: str = "sha256", chunk_size: int = 65535) -> str:
    """Calculates a file's sha256 or md5 hash; returns it as a hex string."""
    hasher = _resolve_hasher(algorithm)() if isinstance(algorithm, str) else algorithm()
    with open(fpath, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            hasher.update(chunk)
    return hasher.hexdigest()


def validate_file(fpath: str, file_hash: str, algorithm: str = "auto", chunk_size: int = 65535) -> bool:
    """Validates a file against a sha256 or md5 hash; returns whether the file is valid."""
    hasher = _resolve_hasher(algorithm, file_hash)
    return _hash_file(fpath, hasher, chunk_size) == str(file_hash)


# ---------------------------------------------------------------------------- extraction
def _inside(base: str, name: str) -> bool:
    target = os.path.realpath(os.path.join(base, name))
    return os.path.commonpath([base, target]) == base


def _check_tar_members(archive: tarfile.TarFile, base: str, fpath: str) -> None:
    for member in archive.getmembers():
        bad = os.path.isabs(member.name) or not _inside(base, member.name)
        if not bad and member.issym():
            bad = os.path.isabs(member.linkname) or not _inside(
                base, os.path.join(os.path.dirname(member.name), member.linkname))
        elif not bad and member.islnk():
            bad = os.path.isabs(member.linkname) or not _inside(base, member.linkname)
        elif not bad and not (member.isfile() or member.isdir()):
            bad = True  # devices and FIFOs have no business in a dataset archive
        if bad:
            raise ValueError(
                f"Refusing to extract {fpath}: its member {member.name!r} would be written "
                f"outside {base} (absolute path, '..' or a link pointing out)."
            )


def _extract_archive(file_path: str, path: str = ".", archive_format: Any = "auto") -> bool:
    """Extracts an archive if it matches a tar, tar.gz, tar.bz or zip format; returns True
    if a match was found and an archive extraction was completed, False otherwise."""
    if archive_format is None:
        return False
    if archive_format == "auto":
        archive_format = ["tar", "zip"]
    if isinstance(archive_format, str):
        archive_format = [archive_format]
    base = os.path.realpath(path)
    for archive_type in archive_format:
        if archive_type == "tar":
            is_match, opener = tarfile.is_tarfile, tarfile.open
        elif archive_type == "zip":
            is_match, opener = zipfile.is_zipfile, zipfile.ZipFile
        else:
            continue
        if not is_match(file_path):
            continue
        with opener(file_path) as archive:
            if archive_type == "tar":
                _check_tar_members(archive, base, file_path)
            else:
                for name in archive.namelist():
                    if name.startswith(("/", "\\")) or os.path.isabs(name) or not _inside(base, name):
                        raise ValueError(
                            f"Refusing to extract {file_path}: its member {name!r} would be "
                            f"written outside {base} (absolute path or '..')."
                        )
            os.makedirs(base, exist_ok=True)
            if archive_type == "tar":
                archive.extractall(base, **({"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}))
            else:
                archive.extractall(base)
        return True
    return False


# ---------------------------------------------------------------------------- download
def _download(origin: str, fpath: str) -> None:
    """Downloads `origin` to a temporary file beside `fpath`, renamed to `fpath` when whole."""
    print_msg(f"Downloading data from {origin}")
    folder = os.path.dirname(fpath)
    fd, partial = tempfile.mkstemp(prefix=os.path.basename(fpath) + ".", suffix=".part", dir=folder)
    try:
        with os.fdopen(fd, "wb") as out:
            try:
                with urllib.request.urlopen(origin) as response:  # noqa: S310 (a user's URL)
                    length = response.headers.get("Content-Length")
                    total = int(length) if length and length.isdigit() else None
                    bar = Progbar(total)
                    done = 0
                    while True:
                        chunk = response.read(_CHUNK)
                        if not chunk:
                            break
                        out.write(chunk)
                        done += len(chunk)
                        if total is None or done < total:
                            bar.update(done)
                    if total is not None and done < total:
                        raise OSError(f"retrieval incomplete: got only {done} out of {total} bytes")
                    bar.update(done, finalize=True)
            except urllib.error.HTTPError as e:
                raise Exception(f"URL fetch failure on {origin}: {e.code} -- {e.msg}") from e  # noqa: TRY002
            except (urllib.error.URLError, OSError, http.client.HTTPException) as e:
                reason = getattr(e, "reason", e)
                raise Exception(  # noqa: TRY002 (Keras raises a plain Exception)
                    f"URL fetch failure on {origin}: {getattr(e, 'errno', None)} -- {reason}. To use the "
                    f"file offline, download it elsewhere and place it at {fpath}"
                ) from e
        os.replace(partial, fpath)
    except BaseException:
        if os.path.exists(partial):
            os.remove(partial)
        raise


def get_file(
    fname: str | os.PathLike | None = None,
    origin: str | None = None,
    untar: bool = False,
    md5_hash: str | None = None,
    file_hash: str | None = None,
    cache_subdir: str = "datasets",
    hash_algorithm: str = "auto",
    extract: bool = False,
    archive_format: Any = "auto",
    cache_dir: str | os.PathLike | None = None,
) -> str:
    """Downloads a file from a URL if it not already in the cache.

    By default the file at the url `origin` is downloaded to the cache_dir `~/.keras`, placed
    in the cache_subdir `datasets`, and given the filename `fname`. The final location of a
    file `example.txt` would therefore be `~/.keras/datasets/example.txt`. Files in tar,
    tar.gz, tar.bz, and zip formats can also be extracted (`extract=True`). Passing a hash
    verifies the file after download (and a cached file before use: a mismatching one is
    downloaded again). `$KERAS_HOME` replaces `~/.keras`; when the folder is not writable,
    `/tmp/.keras` is used.

    Args:
        fname: name of the file; an absolute path saves it there. Defaults to the last part
            of the URL's path.
        origin: original URL of the file.
        untar: deprecated in favor of `extract`; the file is `fname + '.tar.gz'`, extracted,
            and the path of the extracted folder `fname` is returned.
        md5_hash: deprecated in favor of `file_hash`; md5 hash of the file.
        file_hash: the expected sha256 or md5 hash of the file.
        cache_subdir: subdirectory under the Keras cache dir where the file is saved.
        hash_algorithm: 'md5', 'sha256', or 'auto' (detected from the hash's length).
        extract: try extracting the file as an archive (tar or zip) into its folder.
        archive_format: 'auto', 'tar', 'zip', None, or a list of them.
        cache_dir: location to store cached files; defaults to `~/.keras`.

    Returns:
        Path to the downloaded file.
    """
    if origin is None:
        raise ValueError('Please specify the "origin" argument (URL of the file to download).')
    if cache_dir is None:
        cache_dir = os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    datadir_base = os.path.expanduser(os.fspath(cache_dir))
    try:
        os.makedirs(datadir_base, exist_ok=True)
    except OSError:
        pass
    if not os.access(datadir_base, os.W_OK):
        datadir_base = os.path.join(tempfile.gettempdir() if os.name == "nt" else "/tmp", ".keras")
    datadir = os.path.join(datadir_base, cache_subdir)
    os.makedirs(datadir, exist_ok=True)

    fname = os.fspath(fname) if fname is not None else None
    if not fname:
        fname = os.path.basename(urlsplit(origin).path)
        if not fname:
            raise ValueError(
                f"Can't parse the file name from the origin provided: '{origin}'."
                "Please specify the `fname` as the input param."
            )
    if untar:
        if fname.endswith(".tar.gz"):
            fname = fname[: -len(".tar.gz")]
        untar_fpath = os.path.join(datadir, fname)
        fpath = untar_fpath + ".tar.gz"
    else:
        fpath = os.path.join(datadir, fname)

    download = not os.path.exists(fpath)
    if not download and file_hash is not None and not validate_file(fpath, file_hash, hash_algorithm):
        print_msg(
            "A local file was found, but it seems to be incomplete or outdated because the "
            f"{hash_algorithm} file hash does not match the original value of {file_hash} so "
            "we will re-download the data."
        )
        download = True
    if download:
        for attempt in range(2):  # one more download when the first does not match the hash
            _download(origin, fpath)
            if file_hash is None or validate_file(fpath, file_hash, hash_algorithm):
                break
            actual = _hash_file(fpath, _resolve_hasher(hash_algorithm, file_hash))
            os.remove(fpath)
            if attempt:
                raise ValueError(
                    f"Incomplete or corrupted file detected: {fpath} downloaded from {origin} "
                    f"has {hash_algorithm} file hash {actual}, which does not match the "
                    f"provided value of {file_hash}."
                )
            print_msg(f"The downloaded file's hash {actual} does not match {file_hash}; downloading again.")

    if untar:
        if not os.path.exists(untar_fpath):
            _extract_archive(fpath, datadir, archive_format="tar")
        return untar_fpath
    if extract:
        _extract_archive(fpath, datadir, archive_format)
    return fpath
