"""The trnccl backend's collectives, each against torch's own computation
(scenario_collectives.py), on 3 ranks (not a power of two) and on 2."""
from launcher import run_job


def test_collectives_3_ranks_file_init():
    run_job("collectives", 3, init="file")


def test_collectives_2_ranks_tcp_init():
    run_job("collectives", 2, init="tcp")
