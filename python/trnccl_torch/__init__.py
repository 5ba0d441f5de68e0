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

__all__ = ["ProcessGroupTrnccl", "shrink_group"]


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


def shrink_group(excluded_ranks, group=None, timeout=timedelta(minutes=30)):
    """The survivors of `group` (default: the default group) without
    `excluded_ranks` (ranks of `group`), as a new trnccl process group, after
    a rank died: trncclCommShrink with its outstanding work revoked first.
    Every survivor calls it with the same list; the excluded ranks do not.
    The result works with torch.distributed's calls (group=...) and DDP
    (process_group=...); ranks keep their order."""
    c10d = dist.distributed_c10d
    parent = group if group is not None else c10d._get_default_group()
    if not isinstance(parent, ProcessGroupTrnccl):
        raise RuntimeError("trnccl: shrink_group needs a trnccl process group")
    excluded = sorted(set(int(r) for r in excluded_ranks))
    shrunk = parent.shrink(excluded, _milliseconds(timeout))
    # c10d's own tables, so that get_rank(group), all_reduce(group=...) and DDP take it.
    # They map each global rank to its rank in the group (the default group's too).
    group_to_global = {g: r for r, g in c10d._pg_group_ranks[parent].items()}
    survivors = [group_to_global[r] for r in range(parent.size()) if r not in excluded]
    c10d._pg_group_ranks[shrunk] = {g: i for i, g in enumerate(survivors)}
    c10d._pg_map[shrunk] = ("trnccl", None)
    c10d._pg_names[shrunk] = f"trnccl_shrunk_{len(c10d._pg_names)}"
    return shrunk


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
