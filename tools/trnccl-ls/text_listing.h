// trnccl-ls's human-readable listing, in the manner of neuron-ls.
#pragma once

#include <string>

#include "listing.h"

namespace trnccl::ls {

std::string textListing(const Listing& listing);

}  // namespace trnccl::ls
