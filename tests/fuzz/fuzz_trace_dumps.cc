// trnccl-trace analyze's input: the flight-recorder dumps of a job's ranks
// (files anyone could have edited or truncated), separated in the input by
// "\n---\n". Each is parsed or refused with DumpError naming the file, and
// any set of accepted dumps is analyzed into one line without crashing.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis.h"
#include "dumps.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<trnccl::trace::RankDump> dumps;
  for (int part = 0; !input.empty() && part < 8; ++part) {
    const size_t end = input.find("\n---\n");
    const std::string text(input.substr(0, end));
    input.remove_prefix(end == std::string_view::npos ? input.size() : end + 5);
    const std::string file = "trnccl-fuzz-rank" + std::to_string(part) + ".json";
    try {
      trnccl::trace::RankDump dump = trnccl::trace::parseDump(text, file);
      FUZZ_CHECK(dump.rank >= 0 && dump.rank < dump.nranks);
      dumps.push_back(std::move(dump));
    } catch (const trnccl::trace::DumpError& e) {
      FUZZ_CHECK(std::string(e.what()).starts_with(file + ": "));
    }
  }
  if (!dumps.empty()) {
    const trnccl::trace::Diagnosis diagnosis = trnccl::trace::analyze(dumps);
    FUZZ_CHECK(!diagnosis.line.empty());
  }
  return 0;
}
