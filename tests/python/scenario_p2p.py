"""batch_isend_irecv: torch wraps the batch in the process group's coalescing
hooks, which make it one trnccl group, so each rank may post its receive
before its send (the order torch's own test suite uses)."""
import torch
import torch.distributed as dist

from scenario_collectives import DTYPES, expect_equal, rank_input


def check_recv_before_send(rank, world):
    """A ring, every rank's irecv ahead of its isend: one blocking receive
    queued ahead of the send would wait for a peer blocked the same way."""
    nxt, prev = (rank + 1) % world, (rank - 1) % world
    for dtype in DTYPES:
        got = torch.full((17,), -1).to(dtype)
        works = dist.batch_isend_irecv([dist.P2POp(dist.irecv, got, prev),
                                        dist.P2POp(dist.isend, rank_input(rank, dtype, 17), nxt)])
        assert len(works) == 2
        for w in works:
            w.wait()
            assert w.is_completed()
        expect_equal(got, rank_input(prev, dtype, 17), f"irecv {dtype} from {prev} in a batch")


def check_both_directions(rank, world):
    """Both neighbours in one batch, receives first, of different sizes, then
    a collective: the batch left the group usable. Operations between two
    ranks match in list order (with 2 ranks both neighbours are one rank)."""
    nxt, prev = (rank + 1) % world, (rank - 1) % world
    from_prev, from_next = torch.zeros(100 + prev), torch.zeros(200 + nxt)
    ops = [dist.P2POp(dist.irecv, from_prev, prev), dist.P2POp(dist.irecv, from_next, nxt),
           dist.P2POp(dist.isend, torch.full((100 + rank,), float(rank)), nxt),
           dist.P2POp(dist.isend, torch.full((200 + rank,), float(rank)), prev)]
    for w in dist.batch_isend_irecv(ops):
        w.wait()
    expect_equal(from_prev, torch.full((100 + prev,), float(prev)), f"irecv from {prev} (previous)")
    expect_equal(from_next, torch.full((200 + nxt,), float(nxt)), f"irecv from {nxt} (next)")
    t = torch.ones(3)
    dist.all_reduce(t)
    expect_equal(t, torch.full((3,), float(world)), "all_reduce after a batch")


def batch_p2p(rank, world):
    check_recv_before_send(rank, world)
    check_both_directions(rank, world)
