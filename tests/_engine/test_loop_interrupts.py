"""Ctrl-C arrives between steps of the one training loop, never inside one."""

from __future__ import annotations

import os
import signal

import pytest

from torchestimator._engine import loop


class Events(loop.StepEvents):
    def __init__(self):
        self.after = []

    def after_step(self, step, outputs):
        self.after.append(step)
        return False


def test_sigint_inside_a_step_is_raised_when_the_step_ends():
    finished = []

    def step_fn(batch):
        os.kill(os.getpid(), signal.SIGINT)  # delivered now, in the middle of the step
        finished.append(batch)  # ... but the step still completes
        return batch

    events = Events()
    with pytest.raises(KeyboardInterrupt):
        loop.run_steps(step_fn, range(5), events)
    assert finished == [0] and events.after == [0]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # handler restored


def test_sigint_while_waiting_for_input_is_raised_at_once():
    def batches():
        yield 0
        os.kill(os.getpid(), signal.SIGINT)
        yield 1

    made = []
    with pytest.raises(KeyboardInterrupt):
        loop.run_steps(made.append, batches())
    assert made == [0]


def test_a_program_handler_is_left_alone():
    seen = []
    previous = signal.signal(signal.SIGINT, lambda *a: seen.append("handled"))
    try:
        loop.run_steps(lambda b: os.kill(os.getpid(), signal.SIGINT), range(2))
    finally:
        signal.signal(signal.SIGINT, previous)
    assert seen == ["handled", "handled"]


def test_nested_regions_share_one_handler_and_restore_it():
    from torchestimator._engine.interrupts import interrupts_between_steps

    with interrupts_between_steps() as outer:
        handler = signal.getsignal(signal.SIGINT)
        with interrupts_between_steps() as inner:  # each epoch's run_steps inside fit
            assert inner is outer and signal.getsignal(signal.SIGINT) is handler
        assert signal.getsignal(signal.SIGINT) is handler
        finished = []

        def step_fn(batch):
            os.kill(os.getpid(), signal.SIGINT)
            finished.append(batch)

        with pytest.raises(KeyboardInterrupt):
            loop.run_steps(step_fn, range(3))
        assert finished == [0]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
