"""DDP training that loses a rank and goes on: 3 ranks train a small MLP;
rank 2 is killed (SIGKILL) at step 3; ranks 0 and 1 see the failure, shrink
the default group to themselves (trnccl_torch.shrink_group) and train 10
more steps with DDP on the shrunk group, ending with equal parameters."""
import os
import signal

import torch
import torch.distributed as dist

import trnccl_torch

VICTIM = 2


def shrink_ddp(rank, world):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05)
    data = torch.Generator().manual_seed(100 + rank)
    failed_at = None
    for step in range(6):
        if rank == VICTIM and step == 3:
            os.kill(os.getpid(), signal.SIGKILL)
        x, y = torch.randn(32, 8, generator=data), torch.randn(32, 1, generator=data)
        try:
            opt.zero_grad()
            torch.nn.functional.mse_loss(ddp(x), y).backward()
            opt.step()
        except RuntimeError as e:
            print(f"rank {rank}: step {step} failed as expected: {str(e).splitlines()[0]}", flush=True)
            failed_at = step
            break
    assert failed_at == 3, f"rank {rank}: the training did not fail at step 3 (failed at {failed_at})"

    group = trnccl_torch.shrink_group([VICTIM])
    assert group.size() == world - 1 and dist.get_rank(group) == rank, (group.size(), dist.get_rank(group))
    ddp = torch.nn.parallel.DistributedDataParallel(model, process_group=group)  # parameters from rank 0
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05)
    for _ in range(10):
        x, y = torch.randn(32, 8, generator=data), torch.randn(32, 1, generator=data)
        opt.zero_grad()
        torch.nn.functional.mse_loss(ddp(x), y).backward()
        opt.step()
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    gathered = [torch.empty_like(flat) for _ in range(group.size())]
    dist.all_gather(gathered, flat, group=group)
    assert all(torch.equal(g, gathered[0]) for g in gathered), "the survivors' parameters differ"
    dist.barrier(group=group)
    print(f"rank {rank}: 10 steps on the shrunk group, parameters equal", flush=True)
    os._exit(0)  # the default group's communicator has a dead rank: no orderly teardown of it
