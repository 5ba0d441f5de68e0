#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "logic/launch_env.h"

using namespace trnccl::perf;

namespace {

EnvLookup fake_env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

}  // namespace

TEST_CASE("launched_by_mpirun recognises Open MPI, PMIx and PMI launchers", "[perf][launch]") {
  CHECK(launched_by_mpirun(fake_env({{"OMPI_COMM_WORLD_SIZE", "2"}})));
  CHECK(launched_by_mpirun(fake_env({{"PMIX_RANK", "0"}})));
  CHECK(launched_by_mpirun(fake_env({{"PMI_SIZE", "4"}})));
  CHECK_FALSE(launched_by_mpirun(fake_env({})));
  CHECK_FALSE(launched_by_mpirun(fake_env({{"OMPI_MCA_foo", "1"}, {"PATH", "/bin"}})));
}

TEST_CASE("trnccl_variables keeps TRNCCL_* entries only", "[perf][launch]") {
  const auto vars =
      trnccl_variables({"PATH=/bin", "TRNCCL_ALGO=ring", "TRNCCL_DEBUG=INFO=x", "MY_TRNCCL_X=1", "TRNCCL_BROKEN"});
  CHECK(vars == std::map<std::string, std::string>{{"TRNCCL_ALGO", "ring"}, {"TRNCCL_DEBUG", "INFO=x"}});
}

TEST_CASE("mpi_library_name names Open MPI and MPICH from their version text", "[perf][launch]") {
  CHECK(mpi_library_name("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022\n") ==
        "Open MPI v4.1.4");
  CHECK(mpi_library_name("MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 12:34:45 CDT 2022\n") ==
        "MPICH Version: 4.0.2");
  CHECK(mpi_library_name("  padded\t \n") == "padded");
  CHECK(mpi_library_name("") == "");
}
