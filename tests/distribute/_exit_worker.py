"""One process of a two-process gloo group that leaves it at exit (`_cluster._leave_process_group`).

    python _exit_worker.py MODE OUT_DIR      (under torchrun's RANK, WORLD_SIZE, MASTER_ADDR/PORT)

Rank 1 works 3 s more, writes OUT_DIR/rank1.left with the time, and ends. Rank 0, with MODE
"clean", ends at once; with MODE "raise", ends with an uncaught error.
"""

import os
import sys
import time

from torchestimator.distribute._cluster import current_position, init_process_group


def main() -> None:
    mode, out_dir = sys.argv[1], sys.argv[2]
    position = current_position()
    init_process_group(position, "gloo")
    if position.rank == 1:
        time.sleep(3.0)
        with open(os.path.join(out_dir, "rank1.left"), "w") as f:
            f.write(repr(time.time()))
        return
    if mode == "raise":
        raise RuntimeError("rank 0 fails")


if __name__ == "__main__":
    main()
