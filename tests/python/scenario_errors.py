"""Errors reach Python as exceptions carrying trnccl's message instead of
hanging: a collective whose tensor sizes differ across ranks, and a peer that
never joins within the timeout given to init_process_group."""
import os
import time

import torch
import torch.distributed as dist


def expect_raises(call, *words):
    try:
        call()
    except RuntimeError as e:
        text = str(e)
        missing = [w for w in words if w.lower() not in text.lower()]
        assert not missing, f"the error does not say {missing}: {text}"
        return text
    raise AssertionError("no exception")


def mismatch(rank, world):
    """With TRNCCL_CHECK=1 every rank learns at once that the counts differ;
    without, the first rank to see a message of the wrong size says so, and
    its peer fails when it leaves."""
    t = torch.ones(100 + rank)  # rank 1 has one element more
    started = time.monotonic()
    checked = os.environ.get("TRNCCL_CHECK") == "1"
    text = expect_raises(lambda: dist.all_reduce(t), "trnccl", *(["count"] if checked else []))
    print(f"rank {rank}: mismatched all_reduce raised after {time.monotonic() - started:.1f} s: {text}")


def timeout(rank, world):
    """Rank 1 enters nothing until rank 0's all-reduce gave up."""
    store = dist.distributed_c10d._get_default_store()
    if rank == 0:
        text = expect_raises(lambda: dist.all_reduce(torch.ones(10)), "trnccl", "time")
        print(f"rank 0: all_reduce without a peer raised: {text}")
        store.set("rank 0 gave up", "1")
    else:
        store.wait(["rank 0 gave up"])
    raise SystemExit(0)  # the communicator is broken now: no clean destroy_process_group
