// Issuing operations: outside a group an operation runs at once (NULL stream)
// or is queued on its stream; between trncclGroupStart and trncclGroupEnd the
// operations are collected, and GroupEnd gives each communicator one turn with
// all of its operations fused (its sends and receives progress together).
// Sequence numbers and point-to-point tags are assigned here, in program
// order, which is what keeps the ranks matched.
#pragma once

#include "core/communicator.h"
#include "runtime/stream.h"

namespace trnccl::core {

void groupStart();
void groupEnd();  // throws the first error of the group's operations
// Ends the outermost group without running it: the predicted seconds of its
// operations (each communicator's in turn, communicators side by side), whose
// sequence numbers and tags are given back.
double groupSimulateEnd();
bool inGroup();

void issueCollective(Communicator& comm, runtime::Stream* stream, CollectiveCall call);
void issueP2P(Communicator& comm, runtime::Stream* stream, P2PCall call);

}  // namespace trnccl::core
