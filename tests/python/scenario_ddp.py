"""DDP training of a small model on CPU, 20 steps, once over the trnccl
default group and once over a gloo group of the same ranks, from the same
start and data: the parameters must agree (bitwise on 2 ranks, where a sum
of two values does not depend on its order; within float rounding on more)."""
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.testing import assert_close

STEPS = 20


def make_model():
    torch.manual_seed(1234)
    return torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64), torch.nn.Tanh(),
                               torch.nn.Linear(64, 4))


def train(rank, group):
    # Small buckets, so several all-reduces are in flight during backward.
    model = DDP(make_model(), process_group=group, bucket_cap_mb=0.01)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    data = torch.Generator().manual_seed(rank)
    for _ in range(STEPS):
        x = torch.randn(16, 32, generator=data)
        y = torch.randn(16, 4, generator=data)
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    return [p.detach().clone() for p in model.module.parameters()]


def ddp(rank, world):
    trained = train(rank, None)  # the default group: trnccl
    assert dist.get_backend() == "trnccl"
    reference = train(rank, dist.new_group(backend="gloo"))
    start = [p.detach() for p in make_model().parameters()]
    assert any(not torch.equal(a, b) for a, b in zip(trained, start)), "training changed nothing"
    for i, (a, b) in enumerate(zip(trained, reference)):
        if world == 2:
            assert torch.equal(a, b), f"parameter {i}: trnccl and gloo differ, max {(a - b).abs().max()}"
        else:
            assert_close(a, b, rtol=1e-5, atol=1e-6, msg=lambda m: f"parameter {i}: {m}")
