#include "analysis.h"

#include <algorithm>
#include <map>
#include <set>

#include "base/rank_list.h"

namespace trnccl::trace {
namespace {

using trnccl::describeRanks;

// One communicator's dumps, by rank.
struct Comm {
  std::string id;
  int nranks = 0;
  std::map<int, const RankDump*> byRank;

  std::string label() const {
    const RankDump& any = *byRank.begin()->second;
    return "comm " + (any.commName.empty() ? id : any.commName);
  }
  std::vector<int> missing() const {
    std::vector<int> out;
    for (int r = 0; r < nranks; ++r)
      if (!byRank.count(r)) out.push_back(r);
    return out;
  }
};

const RecordedOp* opAt(const RankDump& d, uint64_t seq) {
  for (const RecordedOp& o : d.ops)
    if (o.seq == seq) return &o;
  return nullptr;
}

std::optional<uint64_t> lastSeq(const RankDump& d) {
  std::optional<uint64_t> last;
  for (const RecordedOp& o : d.ops)
    if (o.seq && (!last || *o.seq > *last)) last = o.seq;
  return last;
}

std::string missingNote(const Comm& c) {
  const std::vector<int> m = c.missing();
  if (m.empty()) return "";
  return "; " + describeRanks(m) + " left no dump (stopped or killed? send SIGUSR1 with TRNCCL_TRACE_DIR set)";
}

std::string waitText(int rank, const RecordedOp& o) {
  const std::string peer = "rank " + std::to_string(o.waitPeer);
  return "rank " + std::to_string(rank) + " waits " +
         (o.waitReceiving ? "to receive from " + peer : "for " + peer + " to receive") + " at step " +
         std::to_string(o.waitStep);
}

// The lowest sequence number at which ranks called different collectives.
std::optional<std::string> mismatch(const Comm& c) {
  std::set<uint64_t> seqs;
  for (const auto& [rank, d] : c.byRank)
    for (const RecordedOp& o : d->ops)
      if (o.seq) seqs.insert(*o.seq);
  for (uint64_t seq : seqs) {
    std::map<std::string, std::vector<int>> groups;
    std::map<std::string, const RecordedOp*> example;
    for (const auto& [rank, d] : c.byRank) {
      const RecordedOp* o = opAt(*d, seq);
      if (!o) continue;
      groups[o->signature()].push_back(rank);
      example[o->signature()] = o;
    }
    if (groups.size() < 2) continue;
    std::vector<std::pair<std::vector<int>, std::string>> parts;
    for (const auto& [signature, ranks] : groups) parts.emplace_back(ranks, signature);
    std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
    std::string line = c.label() + ": ranks called different collectives as #" + std::to_string(seq) + ": ";
    for (size_t i = 0; i < parts.size(); ++i)
      line += (i ? ", but " : "") + describeRanks(parts[i].first) + " called " + parts[i].second;
    return line;
  }
  return std::nullopt;
}

// The first operation some rank has not finished: lowest sequence number, or
// a send/recv group.
std::optional<std::pair<int, const RecordedOp*>> firstUnfinished(const Comm& c) {
  std::optional<std::pair<int, const RecordedOp*>> best;
  for (const auto& [rank, d] : c.byRank)
    for (const RecordedOp& o : d->ops) {
      if (o.finished()) continue;
      if (!best || (o.seq && (!best->second->seq || *o.seq < *best->second->seq))) best = {{rank, &o}};
    }
  return best;
}

std::string describeHang(const Comm& c, int someRank, const RecordedOp& stuck) {
  const std::string head = c.label() + ": " + stuck.describe() + " hangs: ";
  if (!stuck.seq) {
    if (stuck.waitPeer >= 0) return head + waitText(someRank, stuck) + missingNote(c);
    return head + "rank " + std::to_string(someRank) + " is " + stuck.state + " in it" + missingNote(c);
  }
  const uint64_t seq = *stuck.seq;
  std::vector<int> entered, never;
  std::vector<std::string> lasts;
  for (const auto& [rank, d] : c.byRank) {
    if (opAt(*d, seq)) {
      entered.push_back(rank);
      continue;
    }
    const std::optional<uint64_t> last = lastSeq(*d);
    if (last && *last > seq) continue;  // past it (its ring no longer holds it)
    never.push_back(rank);
    lasts.push_back(last ? "#" + std::to_string(*last) : "none");
  }
  if (!never.empty()) {
    std::set<std::string> distinct(lasts.begin(), lasts.end());
    const std::string last = distinct.size() == 1 ? *distinct.begin() : "various";
    return head + describeRanks(never) + " never entered it" + " (last collective: " + last + "); " +
           describeRanks(entered) + (entered.size() == 1 ? " is" : " are") + " in it" + missingNote(c);
  }
  // Everyone with a dump entered it: follow who waits for whom to the rank
  // that holds the others up.
  std::map<int, const RecordedOp*> waiting;
  for (int r : entered) {
    const RecordedOp* o = opAt(*c.byRank.at(r), seq);
    if (!o->finished() && o->waitPeer >= 0) waiting[r] = o;
  }
  if (waiting.empty())
    return head + describeRanks(entered) + " entered it and none waits on a peer (still running?)" + missingNote(c);
  int r = waiting.begin()->first;
  std::vector<int> chain;
  for (;;) {
    chain.push_back(r);
    const RecordedOp* o = waiting.at(r);
    const int peer = o->waitPeer;
    std::string tail;
    if (!c.byRank.count(peer)) {
      tail = "; rank " + std::to_string(peer) + " left no dump (stopped or killed?)";
    } else if (!waiting.count(peer)) {
      const RecordedOp* theirs = opAt(*c.byRank.at(peer), seq);
      tail = "; rank " + std::to_string(peer) + " is " + (theirs ? theirs->state : std::string("not")) + " in it";
    } else if (std::find(chain.begin(), chain.end(), peer) != chain.end()) {
      std::string cycle;
      for (int x : chain) cycle += std::to_string(x) + " -> ";
      return head + "ranks wait for each other in a cycle " + cycle + std::to_string(peer) + " (" + waitText(r, *o) +
             ")" + missingNote(c);
    } else {
      r = peer;
      continue;
    }
    const size_t behind = waiting.size() - 1;
    const std::vector<int> m = c.missing();
    std::vector<int> others;  // ranks without a dump other than the one named
    for (int x : m)
      if (x != peer) others.push_back(x);
    return head + waitText(r, *o) + tail +
           (behind
                ? " (" + std::to_string(behind) + " more " + (behind == 1 ? "rank waits" : "ranks wait") + " behind it)"
                : "") +
           (others.empty() ? "" : "; " + describeRanks(others) + " left no dump");
  }
}

}  // namespace

Diagnosis analyze(const std::vector<RankDump>& dumps) {
  std::map<std::string, Comm> comms;
  for (const RankDump& d : dumps) {
    Comm& c = comms[d.comm];
    c.id = d.comm;
    c.nranks = std::max(c.nranks, d.nranks);
    c.byRank[d.rank] = &d;
  }
  for (const auto& [id, c] : comms) {
    if (auto line = mismatch(c)) return {true, *line};
    if (auto stuck = firstUnfinished(c)) return {true, describeHang(c, stuck->first, *stuck->second)};
  }
  const Comm& c = comms.begin()->second;
  std::vector<int> present;
  for (const auto& [rank, d] : c.byRank) present.push_back(rank);
  return {false,
          "no hang recorded: every operation in the dumps of " + describeRanks(present) + " ended" + missingNote(c)};
}

}  // namespace trnccl::trace
