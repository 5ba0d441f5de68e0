// The text of Neuron's nccom-test result table: its columns, its units
// (bandwidths in decimal GB/s as nccom-test prints them since about mid-2025,
// or in GiB per second, labelled GB/s, as it did before) and its closing
// "Avg bus bandwidth" line.
#pragma once

#include <string>

#include "logic/row.h"

namespace trnccl::perf {

std::string nccom_header(bool show_algorithm);
// A row's out-of-place measurement: the median time and its bandwidths.
// `gib`: bandwidths in GiB/s (nccom-test before mid-2025), else decimal GB/s.
std::string nccom_row(const Row& row, bool show_algorithm, bool gib = false);
// `avg_busbw` in nccl-tests' GB/s, as Measurement holds it.
std::string nccom_footer(double avg_busbw, bool gib = false);
// nccom-test's name of a type: fp32, bf16, uint8, ...
std::string nccom_type_name(const std::string& perf_type_name);

}  // namespace trnccl::perf
