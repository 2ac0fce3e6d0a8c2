"""Synthetic data shared by every peer (numpy only, so the TF 2.15 venv can import it)."""

from __future__ import annotations

import numpy as np

EDUCATION = [f"edu_{i}" for i in range(16)]
OCCUPATION = [f"occ_{i}" for i in range(14)]
N_CITIES = 300
CITY_BUCKETS = 1000
AGE_BOUNDARIES = [25, 30, 35, 40, 45, 50, 55, 60, 65, 70]
CROSS_BUCKETS = 1000


def mlp(rows: int) -> tuple[np.ndarray, np.ndarray]:
    """MNIST-shaped rows: x float32 [rows, 784] in [0, 1), y one-hot float32 [rows, 10]."""
    rng = np.random.default_rng(0)
    x = rng.random((rows, 784), dtype=np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, rows)]
    return x, y


def iris(rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Iris-shaped rows (4 float columns, 3 classes), the 120 training rows tiled to `rows`."""
    rng = np.random.default_rng(0)
    centers = np.array([[5.0, 3.4, 1.5, 0.2], [5.9, 2.8, 4.3, 1.3], [6.6, 3.0, 5.6, 2.0]])
    y = np.repeat(np.arange(3), 40)
    x = (centers[y] + rng.normal(0, 0.3, (120, 4))).astype(np.float32)
    reps = -(-rows // 120)
    return np.tile(x, (reps, 1))[:rows], np.tile(y, reps)[:rows].astype(np.int64)


IRIS_COLUMNS = ["SepalLength", "SepalWidth", "PetalLength", "PetalWidth"]


def linreg() -> tuple[np.ndarray, np.ndarray]:
    """100 rows of y = 3x + 2 (x, y float32 [100, 1])."""
    x = np.random.default_rng(0).normal(size=(100, 1)).astype(np.float32)
    return x, (3 * x + 2).astype(np.float32)


def wide_deep(rows: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """A census-shaped table: age, hours (float32), education, occupation, city (strings), 0/1 label."""
    rng = np.random.default_rng(0)
    age = rng.uniform(18, 80, rows).astype(np.float32)
    hours = np.clip(rng.normal(40, 12, rows), 1, 99).astype(np.float32)
    edu = rng.integers(0, len(EDUCATION), rows)
    occ = rng.integers(0, len(OCCUPATION), rows)
    city = rng.integers(0, N_CITIES, rows)
    logit = -0.002 * (age - 48) ** 2 + 0.03 * (hours - 40) + (edu - 8) / 8 + (occ % 3 - 1) * 0.5
    label = (rng.random(rows) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    features = {
        "age": age, "hours": hours,
        "education": np.array(EDUCATION, dtype=object)[edu],
        "occupation": np.array(OCCUPATION, dtype=object)[occ],
        "city": np.array([f"city_{i}" for i in range(N_CITIES)], dtype=object)[city],
    }
    return features, label


def encode_wide_deep(features: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """What a PyTorch user writes before the model: integer ids of every categorical feature.

    age bucket (11), education (16), occupation (14), city hashed into 1000 buckets (Python's
    crc32-free stand-in: a vocabulary of the seen cities, mod 1000), education x occupation cross.
    """
    edu_index = {v: i for i, v in enumerate(EDUCATION)}
    occ_index = {v: i for i, v in enumerate(OCCUPATION)}
    edu = np.fromiter((edu_index[v] for v in features["education"]), np.int64, len(features["education"]))
    occ = np.fromiter((occ_index[v] for v in features["occupation"]), np.int64, len(features["occupation"]))
    city = np.fromiter((int(v[5:]) for v in features["city"]), np.int64, len(features["city"])) % CITY_BUCKETS
    age_bucket = np.searchsorted(np.array(AGE_BOUNDARIES, np.float32), features["age"], side="right")
    cross = (edu * len(OCCUPATION) + occ) % CROSS_BUCKETS
    numeric = np.stack([(features["age"] - 49.0) / 18.0, (features["hours"] - 40.0) / 12.0], 1)
    return {"age_bucket": age_bucket, "edu": edu, "occ": occ, "city": city, "cross": cross,
            "numeric": numeric.astype(np.float32)}


# Offsets of each id space inside one wide EmbeddingBag table.
WIDE_SIZES = {"age_bucket": len(AGE_BOUNDARIES) + 1, "edu": len(EDUCATION), "occ": len(OCCUPATION),
              "city": CITY_BUCKETS, "cross": CROSS_BUCKETS}


def wide_ids(enc: dict[str, np.ndarray]) -> np.ndarray:
    """[rows, 5] ids into one table of sum(WIDE_SIZES) rows (the linear part's weights)."""
    offset, cols = 0, []
    for name, size in WIDE_SIZES.items():
        cols.append(enc[name] + offset)
        offset += size
    return np.stack(cols, 1)


def write_table(path: str, rows: int, fmt: str, seed: int = 0, chunk: int = 500_000) -> None:
    """The input-pipeline file: 10 float, 3 string, 2 int columns and a 0/1 label, CSV or Parquet."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    vocabs = {name: np.array([f"{name}_{k}" for k in range(v)], dtype=object)
              for name, v in (("cat10", 10), ("cat100", 100), ("cat10k", 10_000))}
    writer = None
    with open(path, "wb") as f:
        for start in range(0, rows, chunk):
            n = min(chunk, rows - start)
            cols = {f"f{i}": np.round(rng.normal(size=n), 4).astype(np.float32) for i in range(10)}
            for name, vocab in vocabs.items():
                cols[name] = vocab[rng.integers(0, len(vocab), n)]
            cols["i0"] = rng.integers(0, 1000, n)
            cols["i1"] = rng.integers(-1_000_000, 1_000_000, n)
            cols["label"] = rng.integers(0, 2, n)
            table = pa.table(cols)
            if fmt == "csv":
                if not start:
                    f.write((",".join(table.column_names) + "\n").encode())
                pacsv.write_csv(table, f, write_options=pacsv.WriteOptions(
                    include_header=False, quoting_style="none"))
            else:
                if writer is None:
                    writer = pq.ParquetWriter(f, table.schema)
                writer.write_table(table, row_group_size=65_536)
        if writer is not None:
            writer.close()


def write_numeric_parquet(path: str, rows: int, features: int = 10, chunk: int = 500_000) -> None:
    """The scaling file: `features` float32 columns x0.. and a 0/1 label, row groups of 64k."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(0)
    w = rng.normal(size=features)
    writer = None
    for start in range(0, rows, chunk):
        n = min(chunk, rows - start)
        x = rng.normal(size=(n, features)).astype(np.float32)
        label = (x @ w + rng.normal(size=n) > 0).astype(np.int64)
        cols = {f"x{i}": x[:, i] for i in range(features)}
        cols["label"] = label
        table = pa.table(cols)
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema)
        writer.write_table(table, row_group_size=65_536)
    writer.close()
