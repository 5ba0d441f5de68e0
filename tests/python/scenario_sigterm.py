"""Ranks for test_sigterm.py to terminate. Each says READY once it has work
in flight; the test then signals it."""
import time

import torch
import torch.distributed as dist

READY = "in the collective"


def sigterm_blocked(rank, world):
    """Rank 0 waits in an all-reduce the other ranks never join."""
    if rank == 0:
        print(READY, flush=True)
        dist.all_reduce(torch.ones(10))
    time.sleep(600)  # until the test ends it


def sigterm_busy(rank, world):
    """Every rank keeps all-reduces in flight until a peer is gone."""
    print(READY, flush=True)
    t = torch.ones(1 << 18)
    while True:
        for work in [dist.all_reduce(t, async_op=True) for _ in range(4)]:
            work.wait()
