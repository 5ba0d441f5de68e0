#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace trnccl::perf {

// Reads one environment variable; nullptr when unset (the shape of getenv).
using EnvLookup = std::function<const char*(const char*)>;

// Whether mpirun (Open MPI, PMIx or a PMI launcher) started this process, so
// that MPI_Init is called only then and a plain run needs no MPI at all.
bool launched_by_mpirun(const EnvLookup& getenv);

// The TRNCCL_* variables among "NAME=value" entries (the shape of environ),
// which the JSON report records because they change what was measured.
std::map<std::string, std::string> trnccl_variables(const std::vector<std::string_view>& environment);

// Which MPI the peer columns are, from MPI_Get_library_version's text: its
// first line up to the first comma, whitespace runs as one space ("Open MPI
// v4.1.4", "MPICH Version: 4.0.2"), so the tables of the two MPIs say which
// is which.
std::string mpi_library_name(std::string_view version_text);

}  // namespace trnccl::perf
