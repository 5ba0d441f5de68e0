// trnccl-ls: neuron-ls for emulated Trainium systems. Lists a topology's
// chips, NeuronCores and the ranks placed on them, its NeuronLink graph, its
// EFA NICs and the host underneath, as text or JSON.
#include <cstdio>
#include <string>
#include <vector>

#include "base/env.h"
#include "base/error.h"
#include "json_listing.h"
#include "neuron_ls_json.h"
#include "options.h"
#include "text_listing.h"
#include "topology/topology.h"

int main(int argc, char** argv) {
  using namespace trnccl;
  try {
    const ls::Options options = ls::parseOptions(std::vector<std::string>(argv + 1, argv + argc),
                                                 env::get("TRNCCL_TOPO").value_or("trn1.32xlarge"));
    if (options.help) {
      std::string names;
      for (const std::string& n : topo::shippedTopologyNames()) names += " " + n;
      std::printf("%s\nshipped topologies:%s\n", ls::usageText().c_str(), names.c_str());
      return 0;
    }
    const ls::Listing listing = ls::makeListing(options);
    const std::string text = options.neuronJson ? ls::neuronLsJson(listing).dump(4) + "\n"
                             : options.json     ? ls::jsonListing(listing).dump(2) + "\n"
                                                : ls::textListing(listing);
    std::fputs(text.c_str(), stdout);
    return 0;
  } catch (const ls::UsageError& e) {
    std::fprintf(stderr, "trnccl-ls: %s (see trnccl-ls --help)\n", e.what());
    return 2;
  } catch (const Error& e) {
    // A topology or order that cannot be used is a bad argument too.
    std::fprintf(stderr, "trnccl-ls: %s\n", e.what());
    return e.code() == trncclInvalidArgument ? 2 : 1;
  }
}
