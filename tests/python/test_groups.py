"""new_group over trnccl (scenario_groups.py)."""
from launcher import run_job


def test_new_group_4_ranks():
    run_job("groups", 4, init="file")
