"""trnccl as a PyTorch process-group backend.

    import trnccl_torch
    torch.distributed.init_process_group("trnccl", ...)

Importing this module registers the "trnccl" backend. Groups of every rank of
a trnccl default group (new_group() of every rank) are split
from it with trncclCommSplit; other groups get a communicator of their own,
whose unique id travels through the store PyTorch passes in.
"""
import signal
import threading
from datetime import timedelta

import torch.distributed as dist

from ._C import ProcessGroupTrnccl

__all__ = ["ProcessGroupTrnccl"]


def _milliseconds(timeout):
    seconds = timeout.total_seconds() if isinstance(timeout, timedelta) else float(timeout)
    return timedelta(milliseconds=max(1, int(seconds * 1000)))


def _default_trnccl_group():
    if not dist.is_initialized():
        return None
    group = dist.distributed_c10d._get_default_group()
    return group if isinstance(group, ProcessGroupTrnccl) else None


def _create(opts, pg_options=None):
    """The extended-API creator c10d calls with _DistributedBackendOptions."""
    if pg_options is not None:
        raise RuntimeError("trnccl: process group options are not supported (pass pg_options=None)")
    timeout = _milliseconds(opts.timeout)
    ranks = list(opts.global_ranks_in_group)
    parent = _default_trnccl_group()
    # Split needs every rank of the parent to call it; c10d calls the creator
    # only on the members of a new group, so only groups of all ranks can split.
    if parent is not None and ranks and sorted(ranks) == list(range(parent.size())):
        return ProcessGroupTrnccl(parent, opts.group_rank, opts.group_size, timeout)
    return ProcessGroupTrnccl(opts.store, opts.group_rank, opts.group_size, timeout)


def _restore_default_sigterm():
    """Debian's torch loads libinfinipath, whose SIGTERM handler calls exit().
    A rank whose peer failed is usually exiting when the launcher terminates
    it, and a second exit() from inside exit's handlers (or from inside
    malloc) deadlocks. Unless Python code set a handler of its own, SIGTERM
    gets its default action back: the process ends at once, as it would
    without that library."""
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


_restore_default_sigterm()

if "TRNCCL" not in dist.Backend._plugins:
    dist.Backend.register_backend("trnccl", _create, extended_api=True)
