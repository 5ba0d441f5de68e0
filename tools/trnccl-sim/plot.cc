#include "plot.h"

#include <sys/wait.h>

#include <cstdio>
#include <map>

#include "base/error.h"

namespace trnccl::simtool {
namespace {

// gnuplot's strings are in double quotes: keep the label printable.
std::string quoted(std::string text) {
  for (char& c : text)
    if (c == '"' || c == '\\') c = '\'';
  return "\"" + text + "\"";
}

}  // namespace

void plot(const std::vector<Row>& rows, const std::string& file) {
  std::map<std::string, std::vector<const Row*>> lines;  // ordered, so the legend is stable
  for (const Row& r : rows) lines[r.machine + " " + r.requested].push_back(&r);
  std::string script = "set terminal " + std::string(file.ends_with(".svg") ? "svg" : "pngcairo") +
                       " size 900,560\nset output " + quoted(file) +
                       "\nset logscale x 2\nset logscale y 10\nset format x '%.0s%cB'\nset xlabel 'message size'\n"
                       "set ylabel 'busbw (GB/s)'\nset key top left\nset grid\nplot ";
  std::string data;
  bool first = true;
  for (const auto& [label, points] : lines) {
    script += std::string(first ? "" : ", ") + "'-' using 1:2 with linespoints title " + quoted(label);
    first = false;
    for (const Row* r : points)
      if (r->busbw > 0) data += std::to_string(r->bytes) + " " + std::to_string(r->busbw) + "\n";
    data += "e\n";
  }
  FILE* gnuplot = popen("gnuplot", "w");
  if (gnuplot == nullptr) throwSystemError("--plot: cannot run gnuplot", errno);
  const std::string all = script + "\n" + data;
  std::fwrite(all.data(), 1, all.size(), gnuplot);
  const int status = pclose(gnuplot);
  if (status != 0)
    throwError(trncclSystemError, "--plot: gnuplot failed (status " + std::to_string(WEXITSTATUS(status)) +
                                      "; is gnuplot installed?) writing " + file);
}

}  // namespace trnccl::simtool
