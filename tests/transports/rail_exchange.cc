#include "tests/transports/rail_exchange.h"

#include <cstdlib>
#include <vector>

#include "tests/support/open_descriptors.h"
#include "tests/transports/check.h"

namespace trnccl::test {

using transport::Request;
using transport::Tag;
using transport::Transport;
using Clock = std::chrono::steady_clock;

namespace {

// Rank `rank` and its peer each send `bytes` to the other, and check what
// arrived; `midway` runs once the transfer has begun.
void exchange(Transport& t, int rank, Tag tag, size_t bytes, const std::function<void()>& midway = {}) {
  const int peer = 1 - rank;
  std::vector<std::byte> out(bytes), in(bytes);
  fillPattern(out.data(), bytes, rank, peer, tag);
  Request send = makeRequest(peer, tag, out.data(), bytes);
  Request receive = makeRequest(peer, tag, in.data(), bytes);
  t.irecv(receive);
  t.isend(send);
  if (midway) {
    for (int i = 0; i < 20; ++i) t.progress();
    midway();
  }
  drive(t, {&send, &receive});
  const std::string mismatch = patternMismatch(in.data(), bytes, peer, rank, tag);
  expect(mismatch.empty(), "message " + std::to_string(tag) + ": " + mismatch);
}

transport::RailStatus railOf(const Transport& t, size_t index) {
  const std::vector<transport::RailStatus> rails = t.railStatus();
  expect(rails.size() == 2, "the transport reports " + std::to_string(rails.size()) + " rails, not 2");
  return rails[index];
}

// Exchanges 32 MiB each way (more than one link's kernel buffer, so that
// the data spreads over both), round after round, until `done` holds on
// both ranks; throws on both if that takes longer than `limit`.
void exchangeUntil(Transport& t, TestOutOfBand& oob, Tag& tag, const std::function<bool()>& done,
                   std::chrono::seconds limit, const std::string& what) {
  const auto end = Clock::now() + limit;
  for (;;) {
    int state[2][2] = {};  // per rank: done, out of time
    state[oob.rank()][0] = done() ? 1 : 0;
    state[oob.rank()][1] = Clock::now() > end ? 1 : 0;
    oob.allGather(state, sizeof state[0]);
    if (state[0][0] && state[1][0]) return;
    expect(!state[0][1] && !state[1][1], "not within " + std::to_string(limit.count()) + " s: " + what);
    exchange(t, oob.rank(), ++tag, size_t{32} << 20);
  }
}

// Progresses for a while, so that acknowledgements in flight arrive.
void settle(Transport& t) {
  for (const auto end = Clock::now() + std::chrono::milliseconds(300); Clock::now() < end;) {
    t.progress();
    t.wait(std::chrono::milliseconds(1));
  }
}

void setLink(const TwoHosts& hosts, int h, int link, bool up) {
  const std::string command = "ip link set " + hosts.link(h, link) + (up ? " up" : " down");
  expect(std::system(command.c_str()) == 0, "failed: " + command);
}

}  // namespace

void failOverAndBack(const TwoHosts& hosts, int rank, TestOutOfBand& oob, Transport& t, int lost,
                     uint64_t heapAllowance) {
  const int kept = 1 - lost;
  const auto lostRail = static_cast<size_t>(lost), keptRail = static_cast<size_t>(kept);
  const std::string name = "rail " + std::to_string(lost);
  for (size_t i = 0; i < 2; ++i) {
    const transport::RailStatus rail = railOf(t, i);
    expect(rail.name == hosts.link(rank, static_cast<int>(i)),
           "rail " + std::to_string(i) + " runs over " + rail.name + ", not " + hosts.link(rank, static_cast<int>(i)));
  }
  Tag tag = 0;
  for (int i = 0; i < 3; ++i) exchange(t, rank, ++tag, size_t{8} << 20);
  expect(railOf(t, lostRail).bytesSent > 0, name + " carried nothing while both links were up");
  settle(t);
  oob.barrier();
  const int descriptorsBefore = openFileDescriptors();
  const uint64_t heapBefore = t.memoryUse().hostBytes;

  // The link goes down with 32 MiB each way on their way.
  exchange(t, rank, ++tag, size_t{32} << 20, [&] {
    if (rank == 0) setLink(hosts, 0, lost, false);
  });
  exchangeUntil(
      t, oob, tag, [&] { return !railOf(t, lostRail).up; }, std::chrono::seconds(30), name + " shown down");
  expect(railOf(t, lostRail).failovers == 1 && railOf(t, keptRail).up && railOf(t, keptRail).failovers == 0,
         name + " failed over " + std::to_string(railOf(t, lostRail).failovers) + " times; rail " +
             std::to_string(kept) + (railOf(t, keptRail).up ? " up" : " down") + ", failed over " +
             std::to_string(railOf(t, keptRail).failovers));
  for (int i = 0; i < 3; ++i) exchange(t, rank, ++tag, size_t{8} << 20);  // the other rail alone
  oob.barrier();

  // Back: the rail comes up again and carries data (not just acknowledgements).
  if (rank == 0) setLink(hosts, 0, lost, true);
  oob.barrier();
  exchangeUntil(
      t, oob, tag, [&] { return railOf(t, lostRail).up; }, std::chrono::seconds(60), name + " back up");
  const uint64_t sentWhenBack = railOf(t, lostRail).bytesSent;
  exchangeUntil(
      t, oob, tag, [&] { return railOf(t, lostRail).bytesSent > sentWhenBack + (size_t{1} << 20); },
      std::chrono::seconds(30), name + " carrying data again");
  expect(railOf(t, lostRail).failovers == 1, name + " failed over again after it came back");

  settle(t);
  oob.barrier();
  expect(openFileDescriptors() == descriptorsBefore, "open file descriptors went from " +
                                                         std::to_string(descriptorsBefore) + " to " +
                                                         std::to_string(openFileDescriptors()));
  expect(t.memoryUse().hostBytes <= heapBefore + heapAllowance,
         "the transport's heap went from " + std::to_string(heapBefore) + " to " +
             std::to_string(t.memoryUse().hostBytes) + " bytes (allowed: " + std::to_string(heapAllowance) + " more)");
}

}  // namespace trnccl::test
