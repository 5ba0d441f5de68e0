"""One rank of a test job: joins the "trnccl" process group the way the job
says (PG_TEST_INIT), then runs the scenario PG_TEST_SCENARIO names.
RANK and WORLD_SIZE come from the launcher or from torchrun."""
import datetime
import importlib
import os
import time

import torch.distributed as dist

import trnccl_torch  # noqa: F401  (registers the backend)

SCENARIOS = {
    "batch_p2p": "scenario_p2p",
    "collectives": "scenario_collectives",
    "ddp": "scenario_ddp",
    "groups": "scenario_groups",
    "mismatch": "scenario_errors",
    "sigterm_blocked": "scenario_sigterm",
    "sigterm_busy": "scenario_sigterm",
    "shrink_ddp": "scenario_shrink",
    "timeout": "scenario_errors",
    "smoke": "scenario_collectives",
}


def wait_for_every_rank(folder, rank, world):
    """Returns once every rank has imported torch. The process group's
    timeout (1 s in some scenarios) also bounds how far apart the ranks
    arrive at the rendezvous, and importing torch takes seconds on a loaded
    machine: the scenarios test the timeout, not the ranks' start-up."""
    open(os.path.join(folder, f"started.{rank}"), "w").close()
    deadline = time.monotonic() + 120
    while not all(os.path.exists(os.path.join(folder, f"started.{r}")) for r in range(world)):
        assert time.monotonic() < deadline, "the other ranks did not start within 120 s"
        time.sleep(0.01)


def main():
    scenario = os.environ["PG_TEST_SCENARIO"]
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    timeout = datetime.timedelta(seconds=float(os.environ.get("PG_TEST_TIMEOUT_S", "120")))
    if "PG_TEST_START_DIR" in os.environ:  # not under torchrun
        wait_for_every_rank(os.environ["PG_TEST_START_DIR"], rank, world)
    dist.init_process_group("trnccl", init_method=os.environ["PG_TEST_INIT"], rank=rank, world_size=world,
                            timeout=timeout)
    module = importlib.import_module(SCENARIOS[scenario])
    getattr(module, scenario)(rank, world)
    dist.destroy_process_group()
    print(f"rank {rank}: {scenario} passed", flush=True)


if __name__ == "__main__":
    main()
