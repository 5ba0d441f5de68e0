#include "algorithms/schedule.h"

#include <sstream>

#include "base/datatype.h"

namespace trnccl::algo {

const char* collectiveName(Collective c) { return collectiveFacts(c).name; }

size_t Schedule::stepCount() const {
  size_t n = 0;
  for (const Phase& p : phases)
    for (const Channel& c : p.channels) n += c.steps.size();
  return n;
}

namespace {

const char* bufferName(uint16_t b) {
  switch (b) {
    case kSend:
      return "send";
    case kRecv:
      return "recv";
    case kScratch:
      return "scratch";
    default:
      return "user";
  }
}

void describeStep(std::ostream& os, const Step& s) {
  if (s.recvPeer >= 0)
    os << "recv<" << s.recvPeer << (s.reduce ? " reduce" : "");
  else
    os << (s.reduce ? "reduce" : "load");
  for (const Span& src : s.srcs) os << ' ' << bufferName(src.buffer) << '@' << src.offset;
  if (s.recvPeer >= 0) os << '>';
  if (s.dst.buffer != kNone) os << " -> " << bufferName(s.dst.buffer) << '@' << s.dst.offset;
  if (s.sendPeer >= 0) os << " send>" << s.sendPeer;
  os << " n=" << s.count;
  if (s.recvPeer >= 0) os << " rtag=" << s.recvTag;
  if (s.sendPeer >= 0) os << " stag=" << s.sendTag;
  if (s.final) os << " final";
}

}  // namespace

std::string Schedule::describe() const {
  std::ostringstream os;
  os << collectiveName(collective) << " algo=" << algorithm << " rank=" << rank << '/' << nranks << " count=" << count
     << " type=" << typeName(type) << " op=" << opName(op) << " root=" << root << " scratch=" << scratchElements;
  for (size_t p = 0; p < phases.size(); ++p) {
    for (size_t c = 0; c < phases[p].channels.size(); ++c) {
      const auto& steps = phases[p].channels[c].steps;
      for (size_t i = 0; i < steps.size(); ++i) {
        os << "\n  phase " << p << " channel " << c << " step " << i << ": ";
        describeStep(os, steps[i]);
      }
    }
  }
  return os.str();
}

}  // namespace trnccl::algo
