#include "explain.h"

#include "algorithms/network_model.h"
#include "nccl_tests/collective.h"
#include "nccl_tests/datatypes.h"
#include "nccl_tests/text_format.h"
#include "sim/machine.h"
#include "sim/simulation.h"
#include "sim/uncertainty.h"
#include "sweep.h"

namespace trnccl::simtool {
namespace {

std::string share(double part, double total) {
  return perf::format_text("%10.2f %5.1f%%", part * 1e6, total > 0 ? 100 * part / total : 0.0);
}

// The figures each part depends on, with their sources.
std::string figures(const topo::Topology& t) {
  const topo::EngineModel& e = t.engine;
  std::string text = perf::format_text("#   launch: %.3g us (%s)\n", e.launchSec * 1e6, e.sources[0].c_str());
  text +=
      perf::format_text("#   latency: %.3g us per message issued (%s); NeuronLink hop %.3g us", e.dmaMessageSec * 1e6,
                        e.sources[2].c_str(), t.links.empty() ? 0.0 : t.links[0].latencySec * 1e6);
  if (!t.nics.empty())
    text += perf::format_text("; EFA %.3g us + proxy %.3g us (%s)", t.efaLatencySec * 1e6, e.proxySec * 1e6,
                              e.proxySource.empty() ? "none" : e.proxySource.c_str());
  text += perf::format_text("\n#   bandwidth: DMA engines %.4g GB/s per chip (%s); NeuronLink %.4g GB/s per direction",
                            e.dmaBytesPerSec / 1e9, e.sources[1].c_str(),
                            t.links.empty() ? 0.0 : t.links[0].bytesPerSec / 1e9);
  if (!t.nics.empty())
    text +=
        perf::format_text("; EFA %.4g Gbps per NIC x %.3g efficiency (%s)", t.nics[0].bytesPerSec * 8 / 1e9,
                          t.efaEfficiency, t.efaEfficiencySource.empty() ? "line rate" : t.efaEfficiencySource.c_str());
  return text +
         perf::format_text(
             "\n#   reduction: %.4g GB/s per chip for 2 inputs (%s), in %.3g slices per message, each overlapping "
             "the next one's transfer (%s)\n",
             algo::reductionBytesPerSec(t) / 1e9,
             e.reduceBytesPerSec > 0 ? e.sources[3].c_str() : "the device model's vector engine", e.reduceSlices,
             e.reduceSlicesSource.empty() ? "reduced whole" : e.reduceSlicesSource.c_str());
}

}  // namespace

std::string explain(const Options& o) {
  std::string text;
  const size_t typeBytes = perf::type_size(o.type);
  for (const Variant& v : o.variants) {
    const sim::Machine machine(v.topology, v.knobs, o.ranks, o.rankOrder);
    const topo::Topology& t = machine.topology();
    const sim::Uncertainty band = sim::uncertaintyOf(t);
    text += "# trnccl-sim --explain " + std::to_string(o.explain) +
            " B: " + std::string(perf::collective_name(o.collective)) + " " + std::string(perf::type_name(o.type)) +
            " on " + v.label + " (" + machine.describe() + "), hardware " + t.device.generation + ", Neuron runtime " +
            (t.engine.runtime.empty() ? "of the file" : t.engine.runtime) + "; the tuner's cost model\n";
    text += figures(t);
    text += perf::format_text("# %-17s %-17s %10s %23s %17s %17s %17s %17s\n", "algo", "chosen", "time(us)", "band(us)",
                              "launch(us)", "latency(us)", "bandwidth(us)", "reduction(us)");
    for (const std::string& algorithm : o.algorithms) {
      const perf::Layout layout = perf::layout_for(o.collective, o.explain, typeBytes, machine.ranks());
      const sim::Prediction p = sim::explain(machine, callOf(o, algorithm, layout.count));
      const double s = p.seconds;
      text += perf::format_text("  %-17s %-17s %10.2f %11.2f-%-11.2f %s %s %s %s\n", algorithm.c_str(),
                                p.algorithm.c_str(), s * 1e6, band.low(s) * 1e6, band.high(s) * 1e6,
                                share(p.parts.launch, s).c_str(), share(p.parts.latency, s).c_str(),
                                share(p.parts.bandwidth, s).c_str(), share(p.parts.reduction, s).c_str());
    }
    text += "# band: +-" + perf::format_text("%.0f%%", 100 * band.fraction) + ", " + band.basis + "\n";
  }
  return text;
}

}  // namespace trnccl::simtool
