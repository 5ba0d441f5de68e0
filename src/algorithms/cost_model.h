// The alpha-beta cost of one collective, predicted from the schedules of all
// its ranks on an abstract network. The tuner ranks candidate algorithms with
// it, and it is the analytical engine the simulator starts from: both read the
// same schedules the executor runs.
//
// The model:
//  - Phases run one after another (phase i of every rank together), so the
//    time is the sum over phase indices of the phase times.
//  - A phase takes the longest of
//    (a) every rank-channel's step chain: the sum over its steps of
//          alpha: the latency of the path of the message the step receives,
//          beta:  that message's bytes / the bottleneck bandwidth of the path,
//          gamma: when the step reduces, (inputs - 1) x its bytes / the vector
//                 engine's 2-input reduction rate (at least one pass);
//        a message is charged to the step that receives it, so a send-only
//        step costs nothing here (in a pipeline it overlaps the next step),
//        and local copies are free;
//    (b) every link's load: the bytes of all messages of the phase (all ranks,
//        all channels) that cross the link, divided by its bandwidth.
//    On a network whose channelsShareRank(), a rank's channels of a phase
//    make one chain: their issue, beta and gamma parts add up (one thread
//    does that work), their alpha parts overlap (the longest counts).
//  - Each message is issued by its path's issue link first: issueSec more in
//    its chain; the link issues one message after another while the bytes
//    of those issued before move, so its load is the larger of its bytes'
//    time and its issue time. The call costs the network's launchSec once.
//  - `bound` names what limited the prediction: per phase the dominating term
//    ("link <name>" of the most loaded link when the link load or the beta part
//    of the longest chain dominates, "latency" for its alpha part, "vector
//    engine" for its gamma part), the launch ("launch"), and overall the term
//    that dominated the most predicted time. Empty when nothing is sent or
//    reduced.
// Element sizes come from each schedule's type.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/schedule.h"
#include "algorithms/step_source.h"

namespace trnccl::algo {

// The directed links a message from one rank to another crosses.
struct Path {
  std::vector<int> links;
  double latencySec = 0;
  // The link that issues the message (its sender's DMA engines), which
  // holds it issueSec besides its bytes, one message after another; -1: none.
  int issueLink = -1;
  double issueSec = 0;
};

// The network as the cost model sees it. The core implements it from the
// topology; tests implement it by hand.
class Network {
 public:
  virtual ~Network() = default;
  virtual int linkCount() const = 0;
  virtual double linkBytesPerSec(int link) const = 0;
  virtual const std::string& linkName(int link) const = 0;
  virtual Path path(int fromRank, int toRank) const = 0;
  // Device vector engine throughput for a 2-input reduction, bytes of output per second.
  virtual double reduceBytesPerSec() const = 0;
  // What each collective call costs besides its messages (its launch).
  virtual double launchSec() const { return 0; }
  // The slices a received message is reduced in, each as it arrives, so
  // the reduction of one overlaps the transfer of the next (1: the whole
  // message is reduced after it has arrived).
  virtual double reduceSlices() const { return 1; }
  // Whether a rank's channels share one engine: true where one CPU thread
  // moves and reduces every byte of the rank (the host's shared memory), so
  // a second channel adds its work without a second engine to do it (its
  // waits still overlap); false where each channel has DMA engines of its own.
  virtual bool channelsShareRank() const { return false; }
};

// What a reduction of `reduceSeconds` adds after its message's transfer of
// `transferSeconds` (0 for local data) when both are cut into `slices`
// pipelined slices: the last slice's reduction, and whatever of the others'
// the transfer cannot hide.
inline double exposedReduceSeconds(double reduceSeconds, double transferSeconds, double slices) {
  return (reduceSeconds + (slices - 1) * std::max(0.0, reduceSeconds - transferSeconds)) / slices;
}

// How long a link is busy with `bytes` at `bytesPerSec` and issuing its
// messages for `issueSeconds`: issuing a message overlaps the bytes of those
// issued before it, so the longer of the two.
inline double linkBusySeconds(double bytes, double bytesPerSec, double issueSeconds) {
  return std::max(bytes / bytesPerSec, issueSeconds);
}

// What a prediction's time is made of, by the cost model's terms; they add
// up to its seconds. Per phase, the longest chain's terms, or the busiest
// link's busy time when that is longer (bandwidth for its bytes, latency
// when issuing its messages held it longer).
struct TimeParts {
  double launch = 0;
  double latency = 0;  // the routes' latency and the DMA engines issuing each message
  double bandwidth = 0;
  double reduction = 0;
};

struct Prediction {
  double seconds = 0;
  std::string bound;  // "link chip3->chip7", "latency", "vector engine", "launch"
  TimeParts parts;    // the cost model's split (other engines leave it empty)
};

// The model fed one rank's schedule at a time, so a caller need not hold
// every rank's schedule at once. Throws Error(InternalError) when the network
// names a link it does not have, or gives a link or the vector engine no
// throughput.
class CostModel {
 public:
  explicit CostModel(const Network& net);
  ~CostModel();
  CostModel(const CostModel&) = delete;
  CostModel& operator=(const CostModel&) = delete;

  void add(const Schedule& rank);
  // The same, step by step (no step is held).
  void add(const StepSource& rank);
  // Of the ranks added so far.
  Prediction prediction() const;
  // Per link of the network, the bytes of the messages the ranks added so
  // far receive.
  std::vector<double> linkBytes() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// `allRanks`: the schedules of every rank of one collective (CostModel's errors).
Prediction predict(const std::vector<Schedule>& allRanks, const Network& net);

}  // namespace trnccl::algo
