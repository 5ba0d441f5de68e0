#include "sim/stragglers.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

#include "base/error.h"

namespace trnccl::sim {
namespace {

[[noreturn]] void badSpec(const std::string& spec, const std::string& why) {
  throwError(trncclInvalidArgument, "--straggler '" + spec + "': " + why);
}

// "50us": a number, then its unit.
double parseDelay(const std::string& text, const std::string& spec) {
  static const std::pair<const char*, double> kUnits[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}};
  double value = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const std::string unit(end, text.data() + text.size());
  if (ec == std::errc() && value >= 0 && std::isfinite(value))
    for (const auto& [name, seconds] : kUnits)
      if (unit == name) return value * seconds;
  badSpec(spec, "expected RANK:+TIME with TIME in ns, us, ms or s (5:+50us)");
}

Straggler parseOne(const std::string& spec) {
  Straggler s{-1, 0, spec};
  const size_t colon = spec.find(':');
  const auto [end, ec] = std::from_chars(spec.data(), spec.data() + std::min(colon, spec.size()), s.rank);
  if (colon == std::string::npos || ec != std::errc() || end != spec.data() + colon || s.rank < 0 ||
      spec.compare(colon + 1, 1, "+") != 0)
    badSpec(spec, "expected RANK:+TIME, a rank and how late it enters (5:+50us)");
  s.delaySec = parseDelay(spec.substr(colon + 2), spec);
  return s;
}

}  // namespace

std::vector<Straggler> parseStragglers(const std::string& text) {
  std::vector<Straggler> all;
  for (size_t from = 0; from <= text.size();) {
    const size_t comma = std::min(text.find(',', from), text.size());
    all.push_back(parseOne(text.substr(from, comma - from)));
    from = comma + 1;
  }
  return all;
}

std::vector<double> entryTimes(const std::vector<Straggler>& stragglers, int ranks) {
  std::vector<double> entry(static_cast<size_t>(ranks), 0.0);
  std::vector<bool> late(entry.size(), false);
  for (const Straggler& s : stragglers) {
    if (s.rank >= ranks)
      badSpec(s.spec, "rank " + std::to_string(s.rank) + " out of range: the machine has " + std::to_string(ranks) +
                          " ranks (0-" + std::to_string(ranks - 1) + ")");
    if (late[s.rank]) badSpec(s.spec, "rank " + std::to_string(s.rank) + " is given more than once");
    late[s.rank] = true;
    entry[s.rank] = s.delaySec;
  }
  return entry;
}

}  // namespace trnccl::sim
