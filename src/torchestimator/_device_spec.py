"""TF's `tf.DeviceSpec` (and TF1's mutable `tf.compat.v1.DeviceSpec`): a device name as its
parts, `/job:<name>/replica:<id>/task:<id>/device:<type>:<id>`, parsed and printed as TF 2.15's
(`from_string`, `to_string`, `make_merged_spec`, `replace`). `torch_device(spec)` of the
strategies reads these strings."""

from __future__ import annotations

from typing import Any

_VALID_DEVICE_TYPES = frozenset({"CPU", "GPU", "TPU", "CUSTOM", "EPU"})


def _as_int_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


def _as_device_str_or_none(device_type: Any) -> str | None:
    if device_type in ("cpu", "gpu"):  # TF upper-cases these two for backwards compatibility
        return device_type.upper()
    return None if device_type is None else str(device_type)


def _string_to_components(spec: Any) -> tuple:
    """TF's parse of a device string into (job, replica, task, device_type, device_index)."""
    if isinstance(spec, DeviceSpec):
        return spec._components
    if spec is not None and not isinstance(spec, str):
        raise TypeError(f"Device spec must be a string or a tf.DeviceSpec; got {spec!r}.")
    job = replica = task = device_type = device_index = None
    for part in (spec or "").split("/"):
        y = part.split(":")
        ly = len(y)
        if not part:
            continue
        if ly == 2 and y[0] == "job":
            job = y[1]
        elif ly == 2 and y[0] == "replica":
            replica = y[1]
        elif ly == 2 and y[0] == "task":
            task = y[1]
        elif ly in (1, 2) and y[0].upper() in _VALID_DEVICE_TYPES:
            if device_type is not None:
                raise ValueError(f"Multiple device types are not allowed while parsing the device spec: {spec}.")
            device_type = y[0].upper()
            if ly == 2 and y[1] != "*":
                device_index = int(y[1])
        elif ly == 3 and y[0] == "device":
            if device_type is not None:
                raise ValueError(f"Multiple device types are not allowed while parsing the device spec: {spec}.")
            device_type = y[1]
            if y[2] != "*":
                device_index = int(y[2])
        elif ly and y[0] != "":
            raise ValueError(f"Unknown attribute '{y[0]}' is encountered while parsing the device spec: "
                             f"'{spec}'.")
    return job, replica, task, device_type, device_index


def _components_to_string(job: Any, replica: Any, task: Any, device_type: Any, device_index: Any) -> str:
    output = ""
    if job is not None:
        output += f"/job:{job}"
    if replica is not None:
        output += f"/replica:{replica}"
    if task is not None:
        output += f"/task:{task}"
    if device_type is not None:
        output += f"/device:{device_type}:{'*' if device_index is None else device_index}"
    return output


class DeviceSpec:
    """Represents a (possibly partial) specification for a TensorFlow device (TF's
    `tf.DeviceSpec(job=None, replica=None, task=None, device_type=None, device_index=None)`).
    Immutable: `replace` and `make_merged_spec` return new specs."""

    __slots__ = ("_job", "_replica", "_task", "_device_type", "_device_index", "_as_string", "_hash")

    def __init__(self, job: str | None = None, replica: int | None = None, task: int | None = None,
                 device_type: str | None = None, device_index: int | None = None):
        self._job = None if job is None else str(job)
        self._replica = _as_int_or_none(replica)
        self._task = _as_int_or_none(task)
        self._device_type = _as_device_str_or_none(device_type)
        self._device_index = _as_int_or_none(device_index)
        self._as_string = _components_to_string(self._job, self._replica, self._task, self._device_type,
                                                self._device_index)
        self._hash = hash(self._as_string)

    @classmethod
    def from_string(cls, spec: str) -> DeviceSpec:
        """Construct a `DeviceSpec` from a string such as `/job:worker/task:1/device:GPU:0`."""
        return cls(*_string_to_components(spec))

    def to_string(self) -> str:
        """Return a string representation of this `DeviceSpec`: `/job:<name>/replica:<id>/task:<id>/device:<type>:<id>`."""
        return self._as_string

    def parse_from_string(self, spec: str) -> DeviceSpec:
        """A new `DeviceSpec` from `spec` (TF2's: the spec itself is unchanged)."""
        return self.from_string(spec)

    def make_merged_spec(self, dev: DeviceSpec) -> DeviceSpec:
        """A new DeviceSpec with this spec's fields, overridden by those `dev` sets."""
        return self.__class__(*self._get_combined_properties(dev))

    def replace(self, **kwargs: Any) -> DeviceSpec:
        """A new DeviceSpec with the given fields (`job`, `replica`, `task`, `device_type`,
        `device_index`) replaced."""
        init_kwargs = dict(job=self.job, replica=self.replica, task=self.task,
                           device_type=self.device_type, device_index=self.device_index)
        init_kwargs.update(kwargs)
        return self.__class__(**init_kwargs)

    @property
    def job(self) -> str | None:
        """The job name, or None."""
        return self._job

    @property
    def replica(self) -> int | None:
        """The replica index, or None."""
        return self._replica

    @property
    def task(self) -> int | None:
        """The task index, or None."""
        return self._task

    @property
    def device_type(self) -> str | None:
        """The device type ('CPU', 'GPU', ...), or None."""
        return self._device_type

    @property
    def device_index(self) -> int | None:
        """The device index, or None (any)."""
        return self._device_index

    @property
    def _components(self) -> tuple:
        return self._job, self._replica, self._task, self._device_type, self._device_index

    def _get_combined_properties(self, dev: DeviceSpec) -> tuple:
        return tuple(mine if theirs is None else theirs
                     for mine, theirs in zip(self._components, dev._components))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, self.__class__) and self.to_string() == other.to_string()

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"<DeviceSpec {self._as_string!r}>"


class DeviceSpecV1(DeviceSpec):
    """TF1's mutable `tf.compat.v1.DeviceSpec`: fields can be set, `parse_from_string` and
    `merge_from` update the spec in place."""

    __slots__ = ()

    def _refresh(self) -> None:
        self._as_string = _components_to_string(*self._components)
        self._hash = hash(self._as_string)

    @DeviceSpec.job.setter
    def job(self, job: str | None) -> None:
        self._job = None if job is None else str(job)
        self._refresh()

    @DeviceSpec.replica.setter
    def replica(self, replica: int | None) -> None:
        self._replica = _as_int_or_none(replica)
        self._refresh()

    @DeviceSpec.task.setter
    def task(self, task: int | None) -> None:
        self._task = _as_int_or_none(task)
        self._refresh()

    @DeviceSpec.device_type.setter
    def device_type(self, device_type: str | None) -> None:
        self._device_type = _as_device_str_or_none(device_type)
        self._refresh()

    @DeviceSpec.device_index.setter
    def device_index(self, device_index: int | None) -> None:
        self._device_index = _as_int_or_none(device_index)
        self._refresh()

    def __hash__(self) -> int:
        return hash(self.to_string())

    def parse_from_string(self, spec: str) -> DeviceSpecV1:
        """Parses `spec` into this spec's fields (in place) and returns it."""
        (self.job, self.replica, self.task, self.device_type, self.device_index) = _string_to_components(spec)
        return self

    def merge_from(self, dev: DeviceSpec) -> None:
        """Overrides this spec's fields with those `dev` sets (in place)."""
        (self.job, self.replica, self.task, self.device_type, self.device_index) = \
            self._get_combined_properties(dev)


__all__ = ["DeviceSpec", "DeviceSpecV1"]
