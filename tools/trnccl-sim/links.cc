#include "links.h"

#include <cstdio>
#include <fstream>

#include "base/error.h"

namespace trnccl::simtool {

void writeLinks(const std::vector<Row>& rows, const std::string& file) {
  std::ofstream out(file);
  out << "machine,algo,chosen,engine,bytes,link,link_bytes,busy_us,utilisation\n";
  char line[512];
  for (const Row& r : rows) {
    const algo::Network& net = r.on->network();
    // Folded rows carry the first instance's links only.
    for (int l = 0; l < static_cast<int>(r.prediction.linkBytes.size()); ++l) {
      const double bytes = r.prediction.linkBytes.at(static_cast<size_t>(l));
      const double busy = bytes / net.linkBytesPerSec(l);
      const double utilisation = r.prediction.seconds > 0 ? busy / r.prediction.seconds : 0;
      std::snprintf(line, sizeof line, "\"%s\",%s,%s,%s,%zu,\"%s\",%.0f,%.4f,%.4f\n", r.machine.c_str(),
                    r.requested.c_str(), r.prediction.algorithm.c_str(), sim::engineName(r.prediction.engine), r.bytes,
                    net.linkName(l).c_str(), bytes, busy * 1e6, utilisation);
      out << line;
    }
  }
  if (!out.flush()) throwError(trncclSystemError, "--links: cannot write '" + file + "'");
}

}  // namespace trnccl::simtool
