# Sourced by the bench scripts that compare trnccl with MPI: the two MPI
# peers, Open MPI (the system's mpirun, with trnccl-perf) and MPICH
# (mpiexec.mpich, with trnccl-perf-mpich: the same tool built against
# Debian's libmpich-dev), so that trnccl-perf -m 1's peer columns are the
# launching MPI's. `mpis` lists them; `perf_under MPI RANKS ARGS...` runs
# trnccl-perf ARGS on RANKS processes under MPI (openmpi or mpich), every
# TRNCCL_* variable passed on. Uses `build` (bench/runs.sh sets it).
mpis=(openmpi mpich)
perf_under() {
  local mpi=$1 ranks=$2
  shift 2
  local name env=()
  for name in $(compgen -e | grep '^TRNCCL_' || true); do env+=(-x "$name"); done
  case $mpi in
    # Open MPI refuses root and more ranks than cores unless told; both are expected here.
    openmpi) mpirun --allow-run-as-root --oversubscribe --bind-to none "${env[@]}" -np "$ranks" \
      "${build:-build}"/bin/trnccl-perf "$@" ;;
    # Hydra passes the whole environment on and binds nothing by default.
    mpich) mpiexec.mpich -np "$ranks" "${build:-build}"/bin/trnccl-perf-mpich "$@" ;;
    *) echo "perf_under: no MPI called '$mpi'" >&2; return 2 ;;
  esac
}
