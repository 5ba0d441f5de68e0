"""DDP over trnccl gives gloo's parameters (scenario_ddp.py)."""
from launcher import run_job


def test_ddp_2_ranks_bitwise_equal_to_gloo():
    run_job("ddp", 2, init="file")


def test_ddp_4_ranks_equal_to_gloo_within_rounding():
    run_job("ddp", 4, init="env")
