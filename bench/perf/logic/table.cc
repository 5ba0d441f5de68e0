#include "logic/table.h"

#include <cstdio>
#include <string_view>

#include "nccl_tests/collective.h"
#include "nccl_tests/text_format.h"

namespace trnccl::perf {

namespace {

std::string measurement_columns(const Measurement& m) {
  const std::string wrong = m.wrong ? format_text("%5g", static_cast<double>(*m.wrong)) : format_text("%5s", "N/A");
  return format_text("  %7s  %6.2f  %6.2f  ", format_time_us(m.time_us).c_str(), m.algbw, m.busbw) + wrong;
}

std::string algorithm_columns(const Row& row) {
  const std::string predicted = row.predicted_us ? format_time_us(*row.predicted_us) : format_text("%7s", "n/a");
  return format_text("  %10s  %7s", row.algorithm.c_str(), predicted.c_str());
}

std::string peer_columns(const std::optional<PeerMeasurement>& peer) {
  if (!peer) return format_text("  %8s  %9s  %6s", "n/a", "n/a", "n/a");
  return format_text("  %8s  %9.2f  %6.2f", format_time_us(peer->time_us).c_str(), peer->busbw, peer->ratio);
}

}  // namespace

std::string format_time_us(double time_us) {
  if (time_us >= 10000.0) return format_text("%7.0f", time_us);
  if (time_us >= 100.0) return format_text("%7.1f", time_us);
  return format_text("%7.2f", time_us);
}

std::string table_preamble(const Options& options, int nranks, const std::string& launch, const std::string& version) {
  const bool factor = options.step_factor > 1;
  return format_text("# trnccl-perf %s: trnccl %s, %d ranks (%s)\n",
                     std::string(collective_name(options.collective)).c_str(), version.c_str(), nranks,
                     launch.c_str()) +
         format_text(
             "# nThread %d minBytes %zu maxBytes %zu step: %zu(%s) warmup iters: %d iters: %d validation: %d "
             "blocking: %d\n",
             options.threads, options.min_bytes, options.max_bytes, factor ? options.step_factor : options.step_bytes,
             factor ? "factor" : "bytes", options.warmup_iters, options.iters, options.check ? 1 : 0,
             options.blocking ? 1 : 0);
}

std::string table_header(bool with_peer) {
  std::string text = "#\n";
  text += format_text(
      "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          "
      "            tuner",
      "", "", "", "", "");
  text += with_peer ? "         mpi peer\n" : "\n";
  text += format_text("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s  %10s  %7s", "size", "count",
                      "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong",
                      "algo", "model");
  text += with_peer ? format_text("  %8s  %9s  %6s\n", "mpi time", "mpi busbw", "ratio") : "\n";
  text +=
      format_text("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s  %10s  %7s", "(B)", "(elements)",
                  "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", "", "(us)");
  text += with_peer ? format_text("  %8s  %9s  %6s\n", "(us)", "(GB/s)", "") : "\n";
  return text;
}

std::string table_row(const Row& row, bool with_peer) {
  const std::string root = row.root ? std::to_string(*row.root) : "none";
  std::string text = format_text("%12zu  %12zu  %8s  %6s  %6s", row.size_bytes, row.count, row.type.c_str(),
                                 row.redop.c_str(), root.c_str());
  text += measurement_columns(row.out_of_place) + measurement_columns(row.in_place) + algorithm_columns(row);
  if (with_peer) text += peer_columns(row.mpi);
  return text + "\n";
}

std::string table_footer(size_t wrong_total, double avg_busbw) {
  return format_text("# Out of bounds values : %zu %s\n", wrong_total, wrong_total ? "FAILED" : "OK") +
         format_text("# Avg bus bandwidth    : %g\n", avg_busbw) + "#\n";
}

}  // namespace trnccl::perf
