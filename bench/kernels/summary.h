// A console reporter that also keeps each benchmark's median bytes per second
// and, after the run, prints the summary table (GB/s and the ratio to STREAM
// add at the same size) and the bandwidth targets with PASS/MISS.
#pragma once

#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <vector>

namespace trnccl::bench {

class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  explicit SummaryReporter(std::string isa) : isa_(std::move(isa)) {}
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

 private:
  // Median GB/s of a benchmark, or a negative value if it did not run.
  double gigabytesPerSecond(const std::string& name) const;
  void printReferences(std::ostream& out) const;
  void printReductions(std::ostream& out) const;
  void printTargets(std::ostream& out) const;

  std::string isa_;
  std::map<std::string, double> medians_;                   // from the median aggregate
  std::map<std::string, std::vector<double>> repetitions_;  // without aggregates
};

}  // namespace trnccl::bench
