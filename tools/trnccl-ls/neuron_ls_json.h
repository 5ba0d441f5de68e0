// The listing in neuron-ls --json-output's shape, so scripts written for real
// Trainium instances read an emulated one: an array with one object per
// Neuron device (chip) of one instance, under neuron-ls's field names in
// its order.
#pragma once

#include <nlohmann/json.hpp>

#include "listing.h"

namespace trnccl::ls {

nlohmann::ordered_json neuronLsJson(const Listing& listing);

}  // namespace trnccl::ls
