"""Errors reach Python as exceptions carrying trnccl's message instead of
hanging: a collective whose tensor sizes differ across ranks, and a peer that
never joins within the timeout given to init_process_group."""
import os
import re
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


# How torch's distributed_test.py (_test_barrier_timeout) recognises a timeout.
TIMEOUT_WORDING = " (Timed out|closed|timeout) "


def timeout(rank, world):
    """Rank 1 enters nothing until rank 0's operation (PG_TEST_TIMEOUT_OP:
    all_reduce or barrier) gave up, no sooner than the process group's
    timeout, with an error torch's test suite reads as a timeout."""
    store = dist.distributed_c10d._get_default_store()
    if rank == 0:
        op = os.environ["PG_TEST_TIMEOUT_OP"]
        call = {"all_reduce": lambda: dist.all_reduce(torch.ones(10)), "barrier": dist.barrier}[op]
        started = time.monotonic()
        text = expect_raises(call, "trnccl")
        elapsed = time.monotonic() - started
        assert re.search(TIMEOUT_WORDING, text), f"{op}: {TIMEOUT_WORDING!r} does not match {text}"
        limit = float(os.environ["PG_TEST_TIMEOUT_S"])
        assert elapsed >= limit - 0.1, f"{op} gave up after {elapsed:.2f} s, before the {limit} s timeout"
        print(f"rank 0: {op} without a peer raised after {elapsed:.1f} s: {text}")
        store.set("rank 0 gave up", "1")
    else:
        store.wait(["rank 0 gave up"])
    raise SystemExit(0)  # the communicator is broken now: no clean destroy_process_group
