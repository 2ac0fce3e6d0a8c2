"""The one step loop: `iterate_steps` (the generator form) and `run_steps` (which consumes it)."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest
import torch

from torchestimator._engine import loop


class Events(loop.StepEvents):
    """Records the events; asks to stop after step `stop_at`."""

    def __init__(self, stop_at=None):
        self.log = []
        self.stop_at = stop_at

    def before_step(self, step):
        self.log.append(("before", step))

    def after_step(self, step, outputs):
        self.log.append(("after", step, outputs))
        return step == self.stop_at


def test_run_steps_runs_every_batch_between_the_events():
    events = Events()
    assert loop.run_steps(lambda b: b * 10, range(3), events) == 3
    assert events.log == [("before", 0), ("after", 0, 0), ("before", 1), ("after", 1, 10),
                          ("before", 2), ("after", 2, 20)]


def test_an_event_stops_the_loop_after_its_step():
    events = Events(stop_at=1)
    assert loop.run_steps(lambda b: b, range(10), events) == 2
    assert list(loop.iterate_steps(lambda b: b, range(10), Events(stop_at=1))) == [0, 1]


@pytest.mark.parametrize("max_steps,made", [(None, 5), (3, 3), (5, 5), (9, 5), (0, 0), (-1, 0)])
def test_max_steps(max_steps, made):
    seen = []
    assert loop.run_steps(seen.append, range(5), max_steps=max_steps) == made
    assert seen == list(range(made))
    assert list(loop.iterate_steps(lambda b: b, range(5), max_steps=max_steps)) == list(range(made))


def test_max_steps_reads_no_batch_beyond_the_last_step():
    read = []

    def batches():
        for i in range(10):
            read.append(i)
            yield i

    assert loop.run_steps(lambda b: b, batches(), max_steps=2) == 2
    assert read == [0, 1]


def test_batches_move_to_the_device():
    seen = []

    def step_fn(batch):
        seen.append(batch)
        return batch

    batch = {"x": np.ones((2, 3), np.float32), "s": np.array([b"a", b"b"]), "t": (torch.zeros(2),)}
    loop.run_steps(step_fn, [batch], device=torch.device("meta"))
    moved = seen[0]
    assert moved["x"].device.type == "meta" and moved["t"][0].device.type == "meta"
    assert isinstance(moved["s"], np.ndarray)  # string arrays stay numpy
    seen.clear()
    loop.run_steps(step_fn, [batch])  # no device: the batch is handed over as it is
    assert seen[0] is batch


def test_grad_mode():
    modes = []

    def step_fn(batch):
        modes.append(torch.is_grad_enabled())

    loop.run_steps(step_fn, range(1), grad_enabled=False)
    loop.run_steps(step_fn, range(1))
    assert modes == [False, True]
    for _ in loop.iterate_steps(step_fn, range(2), grad_enabled=False):
        modes.append(("consumer", torch.is_grad_enabled()))  # the step's mode does not leak out
    assert modes[2:] == [False, ("consumer", True), False, ("consumer", True)]


def test_the_consumer_of_the_generator_runs_outside_the_loop():
    """Checks made by predict's caller between steps are read at once: nothing would read them
    back if they were deferred into a loop the caller may stop iterating."""
    seen = []
    steps = loop.iterate_steps(lambda b: seen.append(("step", loop.in_loop())) or b, range(3))
    for _ in steps:
        seen.append(("consumer", loop.in_loop()))
        break
    steps.close()
    assert seen == [("step", True), ("consumer", False)]
    assert not loop.in_loop()
    assert list(loop.iterate_steps(lambda b: loop.in_loop(), range(2))) == [True, True]


def test_run_steps_gives_the_caller_its_grad_mode_back():
    # run_steps enters the mode it is asked for without a context object when the caller is
    # already in it: the caller's mode must come back even when a step changes it, or raises.
    def flips(batch):
        torch.set_grad_enabled(not torch.is_grad_enabled())

    for caller, asked in ((True, True), (True, False), (False, True), (False, False)):
        with torch.set_grad_enabled(caller):
            loop.run_steps(flips, range(3), grad_enabled=asked)
            assert torch.is_grad_enabled() is caller
            with pytest.raises(ZeroDivisionError):
                loop.run_steps(lambda batch: 1 / 0, range(1), grad_enabled=asked)
            assert torch.is_grad_enabled() is caller


def test_a_batch_of_tensors_already_on_the_device_is_handed_over_as_it_is():
    cpu = torch.device("cpu")
    batch = (torch.zeros(2), torch.ones(2))
    assert loop.to_device(batch, cpu) is batch
    mixed = (torch.zeros(2), np.ones(2, np.float32))  # not all tensors: converted one by one
    moved = loop.to_device(mixed, cpu)
    assert moved[0] is mixed[0] and isinstance(moved[1], torch.Tensor)
    meta = loop.to_device(batch, torch.device("meta"))
    assert all(t.device.type == "meta" for t in meta)


def test_the_generator_runs_a_step_only_when_asked():
    made = []
    steps = loop.iterate_steps(lambda b: made.append(b) or b * 2, range(5), Events())
    assert made == []
    assert next(steps) == 0 and made == [0]
    assert next(steps) == 2 and made == [0, 1]
    steps.close()  # the consumer stopped: no further step runs
    assert made == [0, 1]


def test_run_steps_and_the_generator_make_the_same_steps():
    a, b = Events(stop_at=3), Events(stop_at=3)
    made = loop.run_steps(lambda x: x + 1, range(10), a, max_steps=7)
    outputs = list(loop.iterate_steps(lambda x: x + 1, range(10), b, max_steps=7))
    assert made == len(outputs) == 4 and a.log == b.log


def test_the_generator_holds_sigint_inside_a_step():
    finished = []

    def step_fn(batch):
        os.kill(os.getpid(), signal.SIGINT)  # delivered in the middle of the step
        finished.append(batch)  # ... which still completes
        return batch

    events = Events()
    steps = loop.iterate_steps(step_fn, range(5), events)
    with pytest.raises(KeyboardInterrupt):
        next(steps)
    assert finished == [0] and events.log == [("before", 0), ("after", 0, 0)]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_no_handler_stays_installed_while_the_consumer_holds_a_value():
    handlers = []
    for _ in loop.iterate_steps(lambda b: handlers.append(signal.getsignal(signal.SIGINT)), range(2)):
        handlers.append(signal.getsignal(signal.SIGINT))
    inside, outside = handlers[0::2], handlers[1::2]
    assert all(h is not signal.default_int_handler for h in inside)  # a step defers Ctrl-C
    assert all(h is signal.default_int_handler for h in outside)


def test_run_steps_holds_one_handler_for_the_whole_run():
    handlers = []
    loop.run_steps(lambda b: handlers.append(signal.getsignal(signal.SIGINT)), range(3))
    assert len(set(map(id, handlers))) == 1 and handlers[0] is not signal.default_int_handler
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_sigint_while_the_generator_waits_for_input_is_raised_at_once():
    def batches():
        yield 0
        os.kill(os.getpid(), signal.SIGINT)
        yield 1

    made = []
    with pytest.raises(KeyboardInterrupt):
        for _ in loop.iterate_steps(made.append, batches()):
            pass
    assert made == [0]
