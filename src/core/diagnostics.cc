#include "core/diagnostics.h"

#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/log.h"
#include "core/call_check.h"
#include "runtime/dump_watcher.h"

namespace trnccl::core {

Diagnostics::Diagnostics(const Config& config, std::string commId, int rank, int nranks) : dir_(config.traceDir) {
  header_.comm = std::move(commId);
  header_.commName = config.name;
  header_.rank = rank;
  header_.nranks = nranks;
  if (!dir_.empty()) {
    struct stat st {};
    if (stat(dir_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || access(dir_.c_str(), W_OK) != 0)
      throwInvalidArgument("TRNCCL_TRACE_DIR", "is '" + dir_ + "', which is not a writable directory");
    if (config.recorderOps == 0)
      throwInvalidArgument("TRNCCL_TRACE_DIR",
                           "is set, but TRNCCL_RECORDER_OPS=0 turns off the flight recorder it would dump");
  }
  if (!config.tracePattern.empty()) {
    const std::string name =
        "rank " + std::to_string(rank) + " (comm " + (config.name.empty() ? header_.comm : config.name) + ")";
    // Chrome's process id: the rank, offset by the communicator so that a
    // split's ranks get tracks of their own in a merged trace.
    uint64_t h = 0;
    for (char c : header_.comm) h = h * 131 + static_cast<unsigned char>(c);
    const int64_t pid = static_cast<int64_t>(h % 20000) * 100000 + rank;
    trace_ = std::make_unique<runtime::TraceBuffer>(runtime::tracePathFor(config.tracePattern, rank), name, pid);
  }
  if (config.recorderOps > 0) recorder_ = std::make_unique<runtime::FlightRecorder>(config.recorderOps);
  if (recorder_ && !dir_.empty()) signalRegistration_ = runtime::DumpWatcher::add([this] { dump("signal"); });
}

Diagnostics::~Diagnostics() {
  if (signalRegistration_ != 0) runtime::DumpWatcher::remove(signalRegistration_);
}

void Diagnostics::dump(const char* reason) noexcept {
  if (!recorder_ || dir_.empty()) return;
  try {
    runtime::DumpHeader header = header_;
    header.reason = reason;
    const std::string path = runtime::writeDump(*recorder_, header, dir_);
    TRNCCL_WARN("rank %d: flight recorder dumped to %s (%s)", header_.rank, path.c_str(), reason);
  } catch (const std::exception& e) {
    TRNCCL_WARN("rank %d: the flight recorder could not be dumped: %s", header_.rank, e.what());
  }
}

runtime::OpInfo Diagnostics::collectiveInfo(const algo::CollectiveArgs& args, uint64_t sequence) {
  runtime::OpInfo info;
  info.sequence = sequence;
  info.collective = algo::collectiveName(args.collective);
  info.count = args.count;
  info.type = args.type;
  info.op = algo::reduces(args.collective) ? static_cast<int>(args.op) : -1;
  info.root = rooted(args.collective) ? args.root : -1;
  return info;
}

Diagnostics::Op::Op(Diagnostics& d, const runtime::OpInfo& info) : d_(d), info_(info) {
  if (d_.trace_) began_ = runtime::readTicks();
}

Diagnostics::Op::Op(Diagnostics& d, const algo::CollectiveArgs& args, uint64_t sequence)
    : d_(d), args_(&args), sequence_(sequence) {
  if (d_.trace_) began_ = runtime::readTicks();
}

const runtime::OpInfo& Diagnostics::Op::info() {
  if (!info_) info_ = collectiveInfo(*args_, sequence_);
  return *info_;
}

void Diagnostics::Op::begin() {
  if (d_.recorder_ && !recorded_) d_.recorder_->begin(info());
  recorded_ = true;
}

void Diagnostics::Op::running(const char* algorithm) {
  algorithm_ = algorithm;
  if (d_.recorder_) {
    if (recorded_)
      d_.recorder_->running(algorithm);
    else
      d_.recorder_->begin(info(), algorithm);
  }
  recorded_ = true;
}

Diagnostics::Op::~Op() {
  const bool failed = !succeeded_;
  if (d_.recorder_) {
    begin();
    d_.recorder_->finish(!failed);
  }
  if (d_.trace_) {
    runtime::TraceEvent e;
    e.kind = runtime::TraceKind::Collective;
    e.begin = began_;
    e.end = runtime::readTicks();
    e.index = info().sequence;
    e.amount = info().count;
    e.name = info().collective;
    e.detail = algorithm_;
    e.failed = failed;
    d_.trace_->add(e);
  }
}

}  // namespace trnccl::core
