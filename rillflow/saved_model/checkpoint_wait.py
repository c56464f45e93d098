"""`tf.train.checkpoints_iterator`: the new checkpoints of a directory as
they appear (polling `latest_checkpoint`, as TensorFlow does)."""
import logging
import time

from ..framework.api_export import export
from .checkpoint_management import latest_checkpoint

_log = logging.getLogger("rillflow")


def _wait_for_new_checkpoint(checkpoint_dir, last_checkpoint=None, seconds_to_sleep=1,
                             timeout=None):
    stop_time = time.time() + timeout if timeout is not None else None
    while True:
        path = latest_checkpoint(checkpoint_dir)
        if path is None or path == last_checkpoint:
            if stop_time is not None and time.time() + seconds_to_sleep > stop_time:
                return None
            time.sleep(seconds_to_sleep)
        else:
            _log.info("Found new checkpoint at %s", path)
            return path


@export("train.checkpoints_iterator")
def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yields each new checkpoint path of `checkpoint_dir`: waits (up to
    `timeout` seconds, then asks `timeout_fn` whether to stop) for the next,
    at least `min_interval_secs` after the previous was yielded."""
    checkpoint_path = None
    while True:
        new = _wait_for_new_checkpoint(checkpoint_dir, checkpoint_path, timeout=timeout)
        if new:
            start = time.time()
            checkpoint_path = new
            yield checkpoint_path
            remaining = start + min_interval_secs - time.time()
            if remaining > 0:
                time.sleep(remaining)
        elif timeout_fn is None:
            _log.info("Timed-out waiting for a checkpoint (without timeout_fn).")
            return
        if timeout_fn is not None and timeout_fn():
            _log.info("Done. No new checkpoints will be generated.")
            return
