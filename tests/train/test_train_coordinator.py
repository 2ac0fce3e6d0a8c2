"""tf.train.Coordinator."""

import threading

import pytest

import torchestimator as tf


def test_exception_in_a_thread_stops_all_and_is_reraised_by_join():
    coord = tf.train.Coordinator()
    stopped = []

    def worker():
        while not coord.should_stop():
            coord.wait_for_stop(0.01)
        stopped.append(1)

    def failing():
        with coord.stop_on_exception():
            raise ValueError("boom")

    threads = [threading.Thread(target=worker), threading.Thread(target=failing)]
    for t in threads:
        t.start()
    with pytest.raises(ValueError, match="boom"):
        coord.join(threads)
    assert stopped == [1] and coord.should_stop() and coord.joined


def test_out_of_range_is_a_clean_stop():
    coord = tf.train.Coordinator()
    coord.request_stop(tf.errors.OutOfRangeError(None, None, "end"))
    coord.join([])
    coord.clear_stop()
    assert not coord.should_stop()
    assert tf.compat.v1.train.Coordinator is tf.train.Coordinator
