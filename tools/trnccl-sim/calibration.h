// The model held against measurements of real hardware (measured_run.h):
//  --check FILE: predicted against measured for every size of the file, and
//    the median absolute error;
//  --calibrate DIR: the topology's collective-engine figures
//    (topo::kEngineFigures) fitted to every file of DIR by least squares on
//    log time, with each measurement's error under the fit and left out of
//    it (leave-one-out), and the fitted figures as the topology file takes
//    them.
// Fidelity, not consistency: the measurements come from real machines, not
// from trnccl's own link emulation.
#pragma once

#include <string>

#include "options.h"

namespace trnccl::simtool {

std::string check(const Options& options);
std::string calibrate(const Options& options);

}  // namespace trnccl::simtool
