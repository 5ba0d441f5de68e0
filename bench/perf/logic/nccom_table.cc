#include "logic/nccom_table.h"

#include <cstdio>
#include <stdexcept>

#include "base/type_table.h"
#include "nccl_tests/text_format.h"

namespace trnccl::perf {

namespace {

// nccom-test divided by 2^30 before about mid-2025, where nccl-tests divides by 10^9.
constexpr double kGiBPerGB = 1e9 / double(1 << 30);

double unit(bool gib) { return gib ? kGiBPerGB : 1.0; }

const TypeFacts& facts(const std::string& perf_type_name) {
  for (const TypeFacts& t : kTypeFacts)
    if (perf_type_name == t.name) return t;
  throw std::invalid_argument("not a data type: " + perf_type_name);
}

}  // namespace

std::string nccom_type_name(const std::string& perf_type_name) {
  const TypeFacts& t = facts(perf_type_name);
  return t.floatingPoint ? t.alias : t.name;
}

std::string nccom_header(bool show_algorithm) {
  return format_text("%12s    %12s    %8s    %8s    %11s    %11s", "size(B)", "count(elems)", "type", "time(us)",
                     "algbw(GB/s)", "busbw(GB/s)") +
         (show_algorithm ? format_text("    %12s", "algorithm") : "") + "\n";
}

std::string nccom_row(const Row& row, bool show_algorithm, bool gib) {
  const Measurement& m = row.out_of_place;
  // nccom-test counts the elements of the whole size, where nccl-tests counts a rank's.
  return format_text("%12zu    %12zu    %8s    %8.0f    %11.2f    %11.2f", row.size_bytes,
                     row.size_bytes / facts(row.type).size, nccom_type_name(row.type).c_str(), m.time_us,
                     m.algbw * unit(gib), m.busbw * unit(gib)) +
         (show_algorithm ? format_text("    %12s", row.algorithm.c_str()) : "") + "\n";
}

std::string nccom_footer(double avg_busbw, bool gib) {
  return format_text("Avg bus bandwidth:\t%.4fGB/s\n", avg_busbw * unit(gib));
}

}  // namespace trnccl::perf
