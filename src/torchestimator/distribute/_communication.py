"""`CommunicationOptions` and `CommunicationImplementation` (`tf.distribute.experimental`): the
collective implementation of a multi-worker strategy, mapped onto torch.distributed backends."""

from __future__ import annotations

import enum


class CommunicationImplementation(enum.Enum):
    """Cross-device communication implementation: `AUTO` (NCCL on GPUs, gloo on CPU), `RING`
    (gloo, TF's gRPC ring), `NCCL` (NCCL; needs CUDA GPUs)."""

    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


CollectiveCommunication = CommunicationImplementation


class CommunicationOptions:
    """Options for cross-device communications like all-reduce.

    Args:
        bytes_per_pack: TF's gradient packing size (accepted; the buckets here are 25 MiB,
            as DistributedDataParallel's).
        timeout_seconds: how long a collective waits for the other replicas before
            failing (None: 30 minutes, torch's default).
        implementation: a `CommunicationImplementation`.
    """

    def __init__(self, bytes_per_pack: int = 0, timeout_seconds: float | None = None,
                 implementation: CommunicationImplementation = CommunicationImplementation.AUTO) -> None:
        if not isinstance(bytes_per_pack, int) or bytes_per_pack < 0:
            raise ValueError(f"bytes_per_pack must be a non-negative integer; received {bytes_per_pack!r}.")
        if timeout_seconds is not None and not timeout_seconds > 0:
            raise ValueError(f"timeout_seconds must be > 0 or None; received {timeout_seconds!r}.")
        if isinstance(implementation, str):
            try:
                implementation = CommunicationImplementation(implementation.upper())
            except ValueError:
                pass
        if not isinstance(implementation, CommunicationImplementation):
            raise ValueError(
                "implementation must be a tf.distribute.experimental.CommunicationImplementation (AUTO, RING, "
                f"NCCL); received {implementation!r}."
            )
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
        self.implementation = implementation

    def __repr__(self) -> str:
        return (f"CommunicationOptions(bytes_per_pack={self.bytes_per_pack}, timeout_seconds="
                f"{self.timeout_seconds}, implementation={self.implementation.name})")
