#include "sim/folding.h"

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/error.h"

namespace trnccl::sim {
namespace {

class FoldedNetwork : public algo::Network {
 public:
  FoldedNetwork(const algo::Network& net, const Folding& folding) : net_(net), folding_(folding) {}
  // Its routes name instance 0's links only, which the fabric numbers first.
  int linkCount() const override { return folding_.linksPerInstance; }
  double linkBytesPerSec(int link) const override { return net_.linkBytesPerSec(link); }
  const std::string& linkName(int link) const override { return net_.linkName(link); }
  algo::Path path(int fromRank, int toRank) const override {
    algo::Path path = net_.path(fromRank, toRank);
    for (int& link : path.links) link %= folding_.linksPerInstance;
    if (path.issueLink >= 0) path.issueLink %= folding_.linksPerInstance;
    return path;
  }
  double reduceBytesPerSec() const override { return net_.reduceBytesPerSec(); }
  double launchSec() const override { return net_.launchSec(); }
  double reduceSlices() const override { return net_.reduceSlices(); }

 private:
  const algo::Network& net_;
  Folding folding_;
};

}  // namespace

std::optional<Folding> foldingOf(const Machine& machine) {
  const int instances = machine.topology().nodes;
  const int perInstance = machine.ranks() / instances;
  const int links = machine.fabric().linkCount();
  if (instances < 2 || perInstance * instances != machine.ranks() || links % instances != 0) return std::nullopt;
  const auto& cores = machine.cores();
  for (int r = 0; r < machine.ranks(); ++r) {
    topo::CoreLocation first = cores[static_cast<size_t>(r % perInstance)];
    first.node = r / perInstance;
    if (cores[static_cast<size_t>(r)] != first) return std::nullopt;
  }
  return Folding{instances, perInstance, links / instances};
}

std::unique_ptr<algo::Network> foldedNetwork(const algo::Network& net, const Folding& folding) {
  return std::make_unique<FoldedNetwork>(net, folding);
}

namespace {

// Where a message goes, as the folded network routes it: a folded route
// depends only on where its two ranks sit within their instances and
// whether they share one (the instances are alike and the fabric numbers
// its links instance by instance, as foldingOf() checks). So a 65,536-rank
// job has 2 x 32 x 32 folded routes, not one per pair of ranks.
struct Placed {
  int from, to;  // ranks of instance 0, and `to` of instance 1 when the two differ
  uint64_t key() const { return (uint64_t{static_cast<uint32_t>(from)} << 32) | static_cast<uint32_t>(to); }
};

Placed placed(int from, int to, const Folding& folding) {
  const int perInstance = folding.ranksPerInstance;
  const bool apart = from / perInstance != to / perInstance;
  return Placed{from % perInstance, to % perInstance + (apart ? perInstance : 0)};
}

// The folded network, each route asked for once per placed pair. Not
// thread-safe: one pricing's own.
class PlacedRoutes : public algo::Network {
 public:
  PlacedRoutes(const algo::Network& folded, const Folding& folding) : folded_(folded), folding_(folding) {}
  int linkCount() const override { return folded_.linkCount(); }
  double linkBytesPerSec(int link) const override { return folded_.linkBytesPerSec(link); }
  const std::string& linkName(int link) const override { return folded_.linkName(link); }
  algo::Path path(int fromRank, int toRank) const override {
    const Placed at = placed(fromRank, toRank, folding_);
    auto [it, fresh] = paths_.try_emplace(at.key());
    if (fresh) it->second = folded_.path(at.from, at.to);
    return it->second;
  }
  double reduceBytesPerSec() const override { return folded_.reduceBytesPerSec(); }
  double launchSec() const override { return folded_.launchSec(); }
  double reduceSlices() const override { return folded_.reduceSlices(); }

 private:
  const algo::Network& folded_;
  Folding folding_;
  mutable std::unordered_map<uint64_t, algo::Path> paths_;
};

// The folded network's routes, each asked for once per placed pair, as
// ids: two messages cross the same folded links when their ids are equal.
class Routes {
 public:
  Routes(const algo::Network& folded, const Folding& folding) : folded_(folded), folding_(folding) {
    recent_.fill({~uint64_t{0}, -1});
  }
  int id(int from, int to) {
    const uint64_t key = placed(from, to, folding_).key();
    // A ring asks for the same few pairs step after step.
    auto& recent = recent_[(key * 0x9E3779B97F4A7C15ull) >> 60];
    if (recent.first == key) return recent.second;
    auto [it, fresh] = byPair_.try_emplace(key, 0);
    if (fresh)
      it->second = byLinks_.try_emplace(folded_.path(from, to).links, static_cast<int>(byLinks_.size())).first->second;
    recent = {key, it->second};
    return it->second;
  }
  // Whether a message from `fromA` to `toA` crosses the folded links one
  // from `fromB` to `toB` crosses. A rank's steps compare the same two
  // pairs (its receive's and its send's) step after step: the last two
  // found alike are kept.
  bool same(int fromA, int toA, int fromB, int toB) {
    const std::array<int, 4> pairs{fromA, toA, fromB, toB};
    if (alike_[0] == pairs || alike_[1] == pairs) return true;
    if (id(fromA, toA) != id(fromB, toB)) return false;
    alike_[lastAlike_ ^= 1] = pairs;
    return true;
  }

 private:
  const algo::Network& folded_;
  Folding folding_;
  std::unordered_map<uint64_t, int> byPair_;
  std::map<std::vector<int>, int> byLinks_;
  std::array<std::pair<uint64_t, int>, 16> recent_;  // key, id; by the key's top 4 hash bits
  std::array<std::array<int, 4>, 2> alike_{{{-1, -1, -1, -1}, {-1, -1, -1, -1}}};
  int lastAlike_ = 0;
};

// Whether the messages of steps `x` of rank `a` and `y` of rank `b` cross the
// same folded links.
bool sameRoutes(const algo::Step& x, int a, const algo::Step& y, int b, Routes& routes) {
  if ((x.recvPeer < 0) != (y.recvPeer < 0) || (x.sendPeer < 0) != (y.sendPeer < 0)) return false;
  if (x.recvPeer >= 0 && !routes.same(x.recvPeer, a, y.recvPeer, b)) return false;
  return x.sendPeer < 0 || routes.same(a, x.sendPeer, b, y.sendPeer);
}

bool countsAlike(size_t a, size_t b) { return a + 1 >= b && b + 1 >= a; }

// Whether `other` does what `first` does: step by step, messages over the
// same folded links, reductions alike, counts within one element. Both are
// read a run of alike steps at a time (algo::StepRun) into `x` and `y`.
bool alike(const algo::StepSource& first, const algo::StepSource& other, Routes& routes, algo::Step& x, algo::Step& y) {
  const int a = first.header().rank, b = other.header().rank;
  if (first.phases() != other.phases()) return false;
  for (size_t p = 0; p < first.phases(); ++p) {
    if (first.channels(p) != other.channels(p)) return false;
    for (size_t c = 0; c < first.channels(p); ++c) {
      if (first.length(p, c) != other.length(p, c)) return false;
      for (size_t k = 0; k < first.length(p, c);) {
        const algo::StepRun rx = first.run(p, c, k, x), ry = other.run(p, c, k, y);
        if (!sameRoutes(x, a, y, b, routes) || x.reduce != y.reduce || x.srcs.size() != y.srcs.size()) return false;
        // Runs of one length whose counts all lie within one element of
        // each other are alike step by step; otherwise step k alone is.
        if (rx.steps == ry.steps &&
            countsAlike(std::min(rx.minCount, ry.minCount), std::max(rx.maxCount, ry.maxCount))) {
          k += rx.steps;
          continue;
        }
        if (!countsAlike(x.count, y.count)) return false;
        ++k;
      }
    }
  }
  return true;
}

// The instances checked against the first: its neighbour, the middle one
// and the last (where an algorithm's wrap-around or extra ranks show).
std::vector<int> probedInstances(int instances) {
  std::vector<int> probes;
  for (int i : {1, instances / 2, instances - 1})
    if (i > 0 && (probes.empty() || probes.back() != i)) probes.push_back(i);
  return probes;
}

}  // namespace

Prediction predictFolded(const algo::Algorithm& algorithm, const algo::CollectiveArgs& args,
                         const algo::Network& folded, const Folding& folding) {
  const PlacedRoutes placedRoutes(folded, folding);
  algo::CostModel model(placedRoutes);
  Routes routes(placedRoutes, folding);
  const std::vector<int> probes = probedInstances(folding.instances);
  algo::Step x, y;  // reused: the steps are generated one at a time, never held
  for (int r = 0; r < folding.ranksPerInstance; ++r) {
    const std::unique_ptr<algo::StepSource> first = algorithm.steps(algo::argsOfRank(args, r));
    for (int instance : probes) {
      const int rank = instance * folding.ranksPerInstance + r;
      if (!alike(*first, *algorithm.steps(algo::argsOfRank(args, rank)), routes, x, y))
        throwError(trncclInvalidArgument, std::string(algorithm.name()) + " on " + std::to_string(args.nranks) +
                                              " ranks does not treat the instances alike (rank " +
                                              std::to_string(rank) + " does not do what rank " + std::to_string(r) +
                                              " does over the same links), so the folded engine cannot price it");
    }
    model.add(*first);
  }
  // What instance 0 receives, which by the folding is also what it sends;
  // folded routes name instance 0's links only.
  std::vector<double> linkBytes = model.linkBytes();
  linkBytes.resize(static_cast<size_t>(folding.linksPerInstance));
  Prediction prediction;
  static_cast<algo::Prediction&>(prediction) = model.prediction();
  prediction.engine = Engine::Folded;
  prediction.linkBytes = std::move(linkBytes);
  return prediction;
}

Prediction predictFoldedSlowest(const algo::Algorithm& algorithm, const algo::CollectiveArgs& args,
                                const algo::Network& folded, const Folding& folding) {
  const PlacedRoutes placedRoutes(folded, folding);
  std::vector<int> instances = probedInstances(folding.instances);
  instances.insert(instances.begin(), 0);
  Prediction slowest;
  for (int instance : instances) {
    algo::CostModel model(placedRoutes);
    for (int r = 0; r < folding.ranksPerInstance; ++r)
      model.add(*algorithm.steps(algo::argsOfRank(args, instance * folding.ranksPerInstance + r)));
    const algo::Prediction p = model.prediction();
    if (p.seconds > slowest.seconds) static_cast<algo::Prediction&>(slowest) = p;
  }
  slowest.engine = Engine::Folded;
  slowest.bound += " (instances unlike: the slowest of " + std::to_string(instances.size()) + " priced as all)";
  return slowest;
}

Prediction FoldedPricing::priceSlowest(const algo::Algorithm& algorithm, const algo::CollectiveArgs& args) const {
  algo::CollectiveArgs each = args;
  each.maxStepElements = 0;  // as the tuner prices candidates
  return predictFoldedSlowest(algorithm, each, *folded_, folding_);
}

FoldedPricing::FoldedPricing(const algo::Network& net, const Folding& folding)
    : folded_(foldedNetwork(net, folding)), folding_(folding) {}

Prediction FoldedPricing::price(const algo::Algorithm& algorithm, const algo::CollectiveArgs& args) {
  const Key key{algorithm.name(), args.collective, args.count, args.type, args.op, args.root};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (const auto it = priced_.find(key); it != priced_.end()) return it->second;
  }
  algo::CollectiveArgs each = args;
  each.maxStepElements = 0;  // as the tuner prices candidates
  Prediction p = predictFolded(algorithm, each, *folded_, folding_);
  std::lock_guard<std::mutex> lock(mutex_);
  return priced_.emplace(key, std::move(p)).first->second;
}

algo::Tuner::Predictor FoldedPricing::predictor() {
  return [this](const algo::Algorithm& a, const algo::CollectiveArgs& args) {
    try {
      return algo::Prediction(price(a, args));
    } catch (const Error& e) {
      if (e.code() != trncclInvalidArgument) throw;
      return algo::Prediction{std::numeric_limits<double>::infinity(), "", {}};
    }
  };
}

}  // namespace trnccl::sim
