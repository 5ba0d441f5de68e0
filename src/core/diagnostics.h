// A communicator's hang diagnostics: its flight recorder (TRNCCL_RECORDER_OPS),
// the dumps of it into TRNCCL_TRACE_DIR (on a failure such as a timeout, on
// abort, on SIGUSR1), and its TRNCCL_TRACE trace events. The communicator
// opens an Op around each operation; the executor reports waits and steps
// through ExecutorContext::recorder and ::trace.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "algorithms/algorithm.h"
#include "core/config.h"
#include "runtime/flight_recorder.h"
#include "runtime/recorder_dump.h"
#include "runtime/trace_writer.h"
#include "trnccl/trnccl.h"

namespace trnccl::core {

class Diagnostics {
 public:
  // Throws Error(InvalidArgument) naming the variable for a bad setting.
  Diagnostics(const Config& config, std::string commId, int rank, int nranks);
  ~Diagnostics();
  Diagnostics(const Diagnostics&) = delete;
  Diagnostics& operator=(const Diagnostics&) = delete;

  runtime::FlightRecorder* recorder() { return recorder_.get(); }
  const std::string& commId() const { return header_.comm; }  // the same on all ranks
  runtime::TraceBuffer* trace() { return trace_.get(); }

  // One operation, from its turn to its end: recorded as done if succeeded()
  // was called, else (an exception ends it) as failed. The flight recorder sees it from begin() or
  // running(), whichever comes first (an operation that ends before either
  // is recorded as it ends): the bookkeeping then falls where the caller has
  // time for it (the one-shot all-reduce's block in flight).
  class Op {
   public:
    Op(Diagnostics& d, const runtime::OpInfo& info);
    // A collective, described only when first recorded (`args` must outlive
    // the Op).
    Op(Diagnostics& d, const algo::CollectiveArgs& args, uint64_t sequence);
    ~Op();
    Op(const Op&) = delete;
    Op& operator=(const Op&) = delete;
    void begin();  // before anything that may block before running()
    void running(const char* algorithm);
    void succeeded() { succeeded_ = true; }

   private:
    const runtime::OpInfo& info();

    Diagnostics& d_;
    std::optional<runtime::OpInfo> info_;
    const algo::CollectiveArgs* args_ = nullptr;  // info_'s source until described
    uint64_t sequence_ = 0;
    const char* algorithm_ = "";
    uint64_t began_ = 0;
    bool recorded_ = false;  // the recorder has begun it
    bool succeeded_ = false;
  };
  // Writes the recorder's dump if TRNCCL_TRACE_DIR is set; never throws.
  void dump(const char* reason) noexcept;
  void dumpOnFailure(trncclResult_t code) noexcept { dump(code == trncclTimeout ? "timeout" : "failure"); }

 private:
  std::string dir_;
  runtime::DumpHeader header_;
  std::unique_ptr<runtime::FlightRecorder> recorder_;
  std::unique_ptr<runtime::TraceBuffer> trace_;
  uint64_t signalRegistration_ = 0;

  static runtime::OpInfo collectiveInfo(const algo::CollectiveArgs& args, uint64_t sequence);
};

}  // namespace trnccl::core
