"""One rank of a test job: joins the "trnccl" process group the way the job
says (PG_TEST_INIT), then runs the scenario PG_TEST_SCENARIO names.
RANK and WORLD_SIZE come from the launcher or from torchrun."""
import datetime
import importlib
import os

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


def main():
    scenario = os.environ["PG_TEST_SCENARIO"]
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    timeout = datetime.timedelta(seconds=float(os.environ.get("PG_TEST_TIMEOUT_S", "120")))
    dist.init_process_group("trnccl", init_method=os.environ["PG_TEST_INIT"], rank=rank, world_size=world,
                            timeout=timeout)
    module = importlib.import_module(SCENARIOS[scenario])
    getattr(module, scenario)(rank, world)
    dist.destroy_process_group()
    print(f"rank {rank}: {scenario} passed", flush=True)


if __name__ == "__main__":
    main()
