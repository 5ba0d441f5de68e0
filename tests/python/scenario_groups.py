"""new_group over the trnccl default group: a group of all ranks (split from
the default communicator) and groups of some ranks (communicators of their
own, through the store)."""
import torch
import torch.distributed as dist

from trnccl_torch import ProcessGroupTrnccl


def check_group_sum(group, ranks, rank):
    """An all-reduce over `group` sums exactly the contributions of `ranks`."""
    t = torch.full((100,), float(2 ** rank))
    dist.all_reduce(t, group=group)
    expected = float(sum(2 ** r for r in ranks))
    assert torch.equal(t, torch.full((100,), expected)), f"group {ranks}: {t[0]} != {expected}"


def groups(rank, world):
    everyone = dist.new_group()
    assert isinstance(everyone, ProcessGroupTrnccl)
    assert everyone.rank() == rank and everyone.size() == world
    check_group_sum(everyone, range(world), rank)

    odd = [r for r in range(world) if r % 2 == 1]
    even = [r for r in range(world) if r % 2 == 0]
    odd_group, even_group = dist.new_group(odd), dist.new_group(even)  # every rank creates both
    own = odd_group if rank % 2 else even_group
    members = odd if rank % 2 else even
    check_group_sum(own, members, rank)
    gathered = [torch.empty(3) for _ in members]
    dist.all_gather(gathered, torch.full((3,), float(rank)), group=own)
    assert [int(g[0]) for g in gathered] == members, f"all_gather in {members}: {gathered}"
    root = members[-1]
    t = torch.full((5,), float(rank))
    dist.broadcast(t, src=root, group=own)  # src is a global rank
    assert torch.equal(t, torch.full((5,), float(root))), f"broadcast in a subgroup from {root}: {t}"

    check_group_sum(None, range(world), rank)  # the default group still works after all that
    dist.barrier()
