"""Every collective of the trnccl backend against torch's own computation of
the same result, for every dtype the backend takes, contiguous and not."""
import datetime

import torch
import torch.distributed as dist
from torch.testing import assert_close

DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.uint8, torch.int32,
          torch.int64]
OPS = {
    "SUM": (dist.ReduceOp.SUM, lambda xs: xs.sum(0)),
    "PRODUCT": (dist.ReduceOp.PRODUCT, lambda xs: xs.prod(0)),
    "MIN": (dist.ReduceOp.MIN, lambda xs: xs.amin(0)),
    "MAX": (dist.ReduceOp.MAX, lambda xs: xs.amax(0)),
    # trnccl's integer average is the sum divided by the rank count, truncated (as C divides)
    "AVG": (dist.ReduceOp.AVG, lambda xs: (xs.sum(0) / xs.shape[0]) if xs.is_floating_point()
            else torch.div(xs.sum(0), xs.shape[0], rounding_mode="trunc")),
}


def reduced(xs, op):
    """torch's reduction of the ranks' inputs xs[rank], in float64 for floats."""
    wide = xs.double() if xs.is_floating_point() else xs
    return OPS[op][1](wide).to(xs.dtype)


def rank_input(rank, dtype, n, salt=0):
    """What `rank` contributes: small integers (exact in every dtype, and their
    sums and products over a few ranks too), different on every rank."""
    g = torch.Generator().manual_seed(1000 * rank + salt)
    return torch.randint(1, 4, (n,), generator=g).to(dtype)


def all_inputs(world, dtype, n, salt=0):
    return torch.stack([rank_input(r, dtype, n, salt) for r in range(world)])


def expect_equal(actual, expected, what):
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype}, expected {expected.dtype}"
    if expected.is_floating_point():
        assert_close(actual, expected, msg=lambda m: f"{what}: {m}")
    else:
        assert torch.equal(actual, expected), f"{what}: {actual} != {expected}"


def check_all_reduce(rank, world):
    for dtype in DTYPES:
        for op in OPS:
            xs = all_inputs(world, dtype, 37)
            t = xs[rank].clone()
            dist.all_reduce(t, op=OPS[op][0])
            expected = reduced(xs, op)
            expect_equal(t, expected, f"all_reduce {op} {dtype}")


def check_all_gather(rank, world):
    for dtype in DTYPES:
        xs = all_inputs(world, dtype, 29)
        out = [torch.empty(29, dtype=dtype) for _ in range(world)]
        dist.all_gather(out, xs[rank])
        for r in range(world):
            expect_equal(out[r], xs[r], f"all_gather {dtype} from rank {r}")
        flat = torch.empty(world * 29, dtype=dtype)
        dist.all_gather_into_tensor(flat, xs[rank])
        expect_equal(flat, xs.reshape(-1), f"all_gather_into_tensor {dtype}")


def check_reduce_scatter(rank, world):
    for dtype in DTYPES:
        for op in ("SUM", "MAX"):
            xs = all_inputs(world, dtype, world * 11)  # rank r's input: world blocks of 11
            expected = reduced(xs, op).reshape(world, 11)[rank]
            out = torch.empty(11, dtype=dtype)
            dist.reduce_scatter(out, list(xs[rank].reshape(world, 11).unbind(0)), op=OPS[op][0])
            expect_equal(out, expected, f"reduce_scatter {op} {dtype}")
            out = torch.empty(11, dtype=dtype)
            dist.reduce_scatter_tensor(out, xs[rank], op=OPS[op][0])
            expect_equal(out, expected, f"reduce_scatter_tensor {op} {dtype}")


def check_rooted(rank, world):
    for dtype in DTYPES:
        for root in range(world):
            xs = all_inputs(world, dtype, 23, salt=root)
            t = xs[rank].clone()
            dist.broadcast(t, src=root)
            expect_equal(t, xs[root], f"broadcast {dtype} from {root}")
            t = xs[rank].clone()
            dist.reduce(t, dst=root, op=dist.ReduceOp.MIN)
            if rank == root:
                expect_equal(t, reduced(xs, "MIN"), f"reduce {dtype} to {root}")


def check_gather_scatter(rank, world):
    """gather and scatter to and from every root, with gather_list and
    scatter_list only on the root."""
    for dtype in (torch.float32, torch.int64, torch.bfloat16):
        for root in range(world):
            xs = all_inputs(world, dtype, 19, salt=root)
            out = [torch.empty(19, dtype=dtype) for _ in range(world)] if rank == root else None
            dist.gather(xs[rank].clone(), gather_list=out, dst=root)
            if rank == root:
                for r in range(world):
                    expect_equal(out[r], xs[r], f"gather {dtype} to {root} from {r}")
            got = torch.empty(19, dtype=dtype)
            dist.scatter(got, scatter_list=[x.clone() for x in xs] if rank == root else None, src=root)
            expect_equal(got, xs[rank], f"scatter {dtype} from {root}")


def check_reduce_scatter_uneven(rank, world):
    """reduce_scatter whose blocks differ in size (rank r's is r + 2
    elements): trncclReduceScatterV."""
    sizes = [r + 2 for r in range(world)]
    xs = all_inputs(world, torch.float32, sum(sizes), salt=7)
    inputs = list(xs[rank].clone().split(sizes))
    out = torch.empty(sizes[rank])
    dist.reduce_scatter(out, inputs)
    expect_equal(out, reduced(xs, "SUM").split(sizes)[rank], "uneven reduce_scatter")


def check_all_to_all(rank, world):
    for dtype in DTYPES:
        # rank r sends block p of its input to rank p
        xs = all_inputs(world, dtype, world * 5).reshape(world, world, 5)
        out = torch.empty(world * 5, dtype=dtype)
        dist.all_to_all_single(out, xs[rank].reshape(-1))
        expect_equal(out, xs[:, rank].reshape(-1), f"all_to_all_single {dtype}")


def check_all_to_all_uneven(rank, world):
    """Rank r sends split(r, p) rows of 2 elements to rank p (some none)."""
    def split(r, p):
        return (r + 2 * p) % 3

    def block(r, p, dtype):
        return (torch.arange(split(r, p) * 2) + 10 * r + 3 * p).to(dtype).reshape(-1, 2) % 100

    for dtype in (torch.float32, torch.int64, torch.bfloat16):
        mine = torch.cat([block(rank, p, dtype) for p in range(world)])
        expected = torch.cat([block(p, rank, dtype) for p in range(world)])
        out = torch.full_like(expected, -1)
        dist.all_to_all_single(out, mine, output_split_sizes=[split(p, rank) for p in range(world)],
                               input_split_sizes=[split(rank, p) for p in range(world)])
        expect_equal(out, expected, f"all_to_all_single with uneven splits, {dtype}")


def check_send_recv(rank, world):
    """A ring: each rank sends to the next and receives from the previous."""
    for dtype in DTYPES:
        nxt, prev = (rank + 1) % world, (rank - 1) % world
        mine = rank_input(rank, dtype, 13)
        got = torch.empty(13, dtype=dtype)
        if rank % 2 == 0:
            dist.send(mine, nxt)
            dist.recv(got, prev)
        else:
            dist.recv(got, prev)
            dist.send(mine, nxt)
        expect_equal(got, rank_input(prev, dtype, 13), f"recv {dtype} from {prev}")


def check_premul_sum(rank, world):
    """PREMUL_SUM (FSDP's gradient scaling): each input times the factor, then
    summed; the factor as a number and as a one-element tensor."""
    n = 1000
    for dtype in (torch.float32, torch.bfloat16, torch.float64, torch.int32):
        # Factors exact in every dtype tested (integers scale by whole numbers).
        number, in_tensor = (0.5, 0.25) if dtype.is_floating_point else (2.0, 3.0)
        for value, factor in ((number, number), (in_tensor, [torch.tensor([in_tensor], dtype=torch.float64)])):
            op = dist._make_nccl_premul_sum(factor)
            xs = all_inputs(world, dtype, n)
            expected = (xs.double() * value).sum(0).to(dtype)
            t = xs[rank].clone()
            dist.all_reduce(t, op=op)
            expect_equal(t, expected, f"PREMUL_SUM all_reduce, {dtype}, factor {value}")
            block = n // world
            out = torch.empty(block, dtype=dtype)
            dist.reduce_scatter_tensor(out, xs[rank][:block * world].clone(), op=op)
            expect_equal(out, expected[rank * block:(rank + 1) * block], f"PREMUL_SUM reduce_scatter_tensor, {dtype}")


def check_recv_any_source(rank, world):
    """Every other rank sends rank 0 two messages of one size; rank 0 receives
    them from any source, half with recv and half with irecv, and learns each
    sender from what they return (c10d's recv_anysource)."""
    n = 300_000  # past every transport's eager limit, so announced, not copied early
    if rank == 0:
        counts = {p: 0 for p in range(1, world)}
        for i in range(2 * (world - 1)):
            out = torch.full((n,), -1.0)
            if i % 2 == 0:
                sender = dist.recv(out)
            else:
                work = dist.irecv(out)
                work.wait()
                sender = work._source_rank()
            assert sender in counts, f"recv from any source returned sender {sender}"
            expect_equal(out, rank_input(sender, torch.float32, n, salt=counts[sender]),
                         f"message {counts[sender]} of rank {sender}")
            counts[sender] += 1
        assert all(c == 2 for c in counts.values()), f"messages per sender: {counts}"
    else:
        for salt in range(2):
            dist.send(rank_input(rank, torch.float32, n, salt=salt), 0)
    dist.barrier()


def check_non_contiguous(rank, world):
    xs = all_inputs(world, torch.float32, 8 * 6).reshape(world, 8, 6)
    t = xs[rank].clone().t()  # transposed: not contiguous
    dist.all_reduce(t)
    expect_equal(t, xs.sum(0).t(), "all_reduce of a transposed tensor")
    base = torch.zeros(8, 12)
    view = base[:, ::2]  # every other column
    view.copy_(xs[rank])
    dist.broadcast(view, src=world - 1)
    expect_equal(base[:, ::2], xs[world - 1], "broadcast into a strided view")
    assert torch.count_nonzero(base[:, 1::2]) == 0, "broadcast wrote outside its strided view"
    out = [torch.zeros(6, 16)[:, ::2] for _ in range(world)]
    dist.all_gather(out, xs[rank].t())
    for r in range(world):
        expect_equal(out[r], xs[r].t(), f"all_gather into strided views, from rank {r}")
    flat = torch.empty(world * 48)
    dist.all_gather_into_tensor(flat, xs[rank].t())
    expect_equal(flat, torch.stack([x.t().reshape(-1) for x in xs]).reshape(-1),
                 "all_gather_into_tensor of a transposed input")
    got = torch.zeros(6, 16)[:, ::2]
    if rank == 0:
        dist.send(xs[0].t(), world - 1)
    elif rank == world - 1:
        dist.recv(got, 0)
        expect_equal(got, xs[0].t(), "recv into a strided view")


def check_async(rank, world):
    """Several operations in flight at once; each Work and Future completes
    with its own result."""
    xs = all_inputs(world, torch.float32, 1 << 16)
    tensors = [xs[rank] * (i + 1) for i in range(6)]
    works = [dist.all_reduce(t, async_op=True) for t in tensors]
    futures = [w.get_future() for w in works]
    for i, (w, f) in enumerate(zip(works, futures)):
        assert w.wait()
        assert w.is_completed() and w.is_success()
        expect_equal(f.wait()[0], xs.sum(0) * (i + 1), f"future of all_reduce {i}")
        expect_equal(tensors[i], xs.sum(0) * (i + 1), f"async all_reduce {i}")
    dist.barrier()

    # A receive whose sender has not sent yet: not completed, and a wait with a
    # timeout raises; the sender goes on once told (through the store, since
    # every collective on the group would queue behind the receive).
    store = dist.distributed_c10d._get_default_store()
    if rank == 0:
        got = torch.zeros(5)
        work = dist.irecv(got, src=world - 1)
        assert not work.is_completed(), "a receive completed before anything was sent"
        try:
            work.wait(timeout=datetime.timedelta(milliseconds=200))
            raise AssertionError("wait(timeout) returned before anything was sent")
        except RuntimeError as e:
            assert "timed out" in str(e).lower(), f"wait(timeout) raised {e}"
        store.set("async: rank 0 waited", "1")
        work.wait()
        expect_equal(got, torch.arange(5.0), "the receive after a timed-out wait")
    elif rank == world - 1:
        store.wait(["async: rank 0 waited"])
        dist.send(torch.arange(5.0), dst=0)
    dist.barrier()


def check_coalesced(rank, world):
    """all_reduce_coalesced and all_gather_coalesced: tensors of several
    shapes (one empty) in one call, each checked on its own (torch wants one
    dtype a call)."""
    for dtype in (torch.float32, torch.int64, torch.bfloat16):
        xs = [all_inputs(world, dtype, n, salt=n) for n in (7, 0, 33)]
        for op in ("SUM", "MAX"):
            tensors = [x[rank].clone() for x in xs]
            dist.all_reduce_coalesced(tensors, op=OPS[op][0])
            for t, x in zip(tensors, xs):
                expect_equal(t, reduced(x, op), f"all_reduce_coalesced {op} {dtype} of {x.shape[1]}")
        inputs = [x[rank].clone().reshape(1, -1) for x in xs]
        outputs = [[torch.empty_like(t) for t in inputs] for _ in range(world)]
        dist.all_gather_coalesced(outputs, inputs)
        for r in range(world):
            for out, x in zip(outputs[r], xs):
                expect_equal(out.reshape(-1), x[r], f"all_gather_coalesced from rank {r} {dtype} of {x.shape[1]}")


def check_sparse_all_reduce(rank, world):
    """A sparse tensor's sum: each rank holds different, overlapping rows
    (rank 0 none), so counts differ and duplicates must add."""
    dense = torch.zeros(world, 6, 3)
    for r in range(1, world):
        rows = torch.arange(r, 6, 2)
        dense_r = torch.zeros(6, 3)
        dense_r[rows] = float(r) + torch.arange(3.0)
        dense[r] = dense_r
    t = dense[rank].to_sparse(sparse_dim=1)
    dist.all_reduce(t)
    expect_equal(t.to_dense(), dense.sum(0), "sparse all_reduce")
    assert t.is_sparse, "the sparse tensor stays sparse"


def expect_refused(call, *words):
    """`call` raises at once (on every rank alike: nothing reached the peers),
    naming what was wrong."""
    try:
        call()
    except RuntimeError as e:
        assert all(w in str(e) for w in words), f"the error does not say {words}: {e}"
        return
    raise AssertionError(f"not refused; expected an error saying {words}")


def check_bad_arguments(rank, world):
    expect_refused(lambda: dist.all_reduce(torch.ones(3, dtype=torch.bool)), "tensors", "dtype")
    expect_refused(lambda: dist.all_reduce(torch.ones(3), op=dist.ReduceOp.BAND), "reduce op")
    expect_refused(lambda: dist.all_gather([torch.empty(3)] * (world + 1), torch.ones(3)), "tensor_list",
                   "one per rank")
    expect_refused(lambda: dist.all_gather_into_tensor(torch.empty(world * 3 + 1), torch.ones(3)), "output_tensor",
                   "elements")
    expect_refused(lambda: dist.all_gather_into_tensor(torch.empty(world * 3), torch.ones(3, dtype=torch.int32)),
                   "dtype")
    expect_refused(lambda: dist.reduce_scatter_tensor(torch.empty(3), torch.ones(world * 3 + 1)), "input",
                   "elements")
    too_many = [world + 2] + [1] * (world - 1)  # adds up to more rows than the tensor has
    expect_refused(lambda: dist.all_to_all_single(torch.empty(2 * world), torch.ones(2 * world),
                                                  output_split_sizes=too_many, input_split_sizes=too_many),
                   "split_sizes", "adds up to")
    dist.barrier()  # the group still works


def collectives(rank, world):
    for check in (check_bad_arguments, check_all_reduce, check_all_gather, check_reduce_scatter, check_rooted,
                  check_all_to_all, check_all_to_all_uneven, check_send_recv, check_non_contiguous, check_async,
                  check_coalesced, check_sparse_all_reduce, check_gather_scatter, check_reduce_scatter_uneven,
                  check_recv_any_source, check_premul_sum):
        check(rank, world)


def smoke(rank, world):
    """What a launcher test needs: the group formed and carries an all-reduce."""
    assert dist.get_backend() == "trnccl"
    assert (dist.get_rank(), dist.get_world_size()) == (rank, world)
    transport = dist.distributed_c10d._get_default_group().transport
    assert transport == "shm", f"ranks on one host talk over shared memory, not {transport!r}"
    t = torch.full((1000,), float(rank + 1))
    dist.all_reduce(t)
    expect_equal(t, torch.full((1000,), world * (world + 1) / 2), "all_reduce")
