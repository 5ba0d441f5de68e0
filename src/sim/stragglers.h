// --straggler R:+TIME: rank R enters the collective TIME after the others
// (a slow rank: late from its compute, its data loader, a noisy neighbour).
#pragma once

#include <string>
#include <vector>

namespace trnccl::sim {

struct Straggler {
  int rank = 0;
  double delaySec = 0;
  std::string spec;  // as given ("5:+50us"), for messages
};

// "5:+50us", or several comma-separated ("5:+50us,9:+1ms"); TIME is a
// non-negative number with ns, us, ms or s. Throws Error(InvalidArgument)
// naming --straggler and the text.
std::vector<Straggler> parseStragglers(const std::string& text);

// When each of `ranks` ranks enters: 0, or its straggler's delay. Throws
// Error(InvalidArgument) naming --straggler and the spec for a rank out of
// range or given twice.
std::vector<double> entryTimes(const std::vector<Straggler>& stragglers, int ranks);

}  // namespace trnccl::sim
