#include "reporter.h"

#include <cstdio>
#include <stdexcept>
#include <utility>

#include "logic/nccom_table.h"
#include "logic/table.h"

namespace trnccl::perf {

Reporter::Reporter(const Options& options, RunInfo info) : options_(options), info_(std::move(info)) {
  if (options_.json_path.empty()) return;
  json_.open(options_.json_path);
  if (!json_) throw std::runtime_error("cannot write the JSON file '" + options_.json_path + "'");
}

void Reporter::begin() {
  if (options_.style == TableStyle::nccom) {
    std::fputs(nccom_header(options_.show_algorithm).c_str(), stdout);
    std::fflush(stdout);
    return;
  }
  std::string text = table_preamble(options_, info_.nranks, info_.launch, version_string(info_.version_code));
  text += "# transport: " + info_.transport + "\n";
  for (const auto& [name, value] : info_.trnccl_env) text += "# " + name + "=" + value + "\n";
  text += table_header(options_.mpi_peer);
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

void Reporter::add(const Row& row) {
  rows_.push_back(row);
  const std::string text = options_.style == TableStyle::nccom
                               ? nccom_row(row, options_.show_algorithm, options_.gib_bandwidth)
                               : table_row(row, options_.mpi_peer);
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);  // mpirun forwards output as it comes: show each size as it finishes
}

void Reporter::finish() {
  size_t wrong = 0;
  double busbw = 0;
  for (const Row& row : rows_) {
    wrong += row.out_of_place.wrong.value_or(0) + row.in_place.wrong.value_or(0);
    busbw += row.out_of_place.busbw + (options_.in_place ? row.in_place.busbw : 0.0);
  }
  // Over the placements measured: nccom-test's runs time out of place only.
  const size_t placements = rows_.size() * (options_.in_place ? 2 : 1);
  const double avg_busbw = placements == 0 ? 0.0 : busbw / static_cast<double>(placements);
  std::fputs((options_.style == TableStyle::nccom ? nccom_footer(avg_busbw, options_.gib_bandwidth)
                                                  : table_footer(wrong, avg_busbw))
                 .c_str(),
             stdout);
  if (options_.style == TableStyle::nccom && wrong > 0) std::printf("%zu wrong elements\n", wrong);
  std::fflush(stdout);
  if (json_.is_open()) json_ << report_json(options_, info_, rows_, wrong, avg_busbw).dump(2) << "\n";
}

}  // namespace trnccl::perf
