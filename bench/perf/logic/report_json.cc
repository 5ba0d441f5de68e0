#include "logic/report_json.h"

#include "nccl_tests/collective.h"
#include "nccl_tests/datatypes.h"

namespace trnccl::perf {

namespace {

nlohmann::json measurement_json(const Measurement& m) {
  return {{"time_us", m.time_us},
          {"algbw_gbps", m.algbw},
          {"busbw_gbps", m.busbw},
          {"wrong", m.wrong ? nlohmann::json(*m.wrong) : nlohmann::json()}};
}

nlohmann::json row_json(const Row& row, bool with_peer) {
  nlohmann::json j = {{"size_bytes", row.size_bytes},
                      {"count", row.count},
                      {"type", row.type},
                      {"redop", row.redop},
                      {"root", row.root ? nlohmann::json(*row.root) : nlohmann::json()},
                      {"out_of_place", measurement_json(row.out_of_place)},
                      {"in_place", measurement_json(row.in_place)},
                      {"algorithm", row.algorithm},
                      {"predicted_us", row.predicted_us ? nlohmann::json(*row.predicted_us) : nlohmann::json()}};
  if (with_peer) {
    // null: the type has no MPI equivalent (the table's "n/a").
    j["mpi"] =
        row.mpi
            ? nlohmann::json{{"time_us", row.mpi->time_us}, {"busbw_gbps", row.mpi->busbw}, {"ratio", row.mpi->ratio}}
            : nlohmann::json();
  }
  return j;
}

nlohmann::json options_json(const Options& o) {
  nlohmann::json ops = nlohmann::json::array();
  for (trncclRedOp_t op : o.ops) ops.push_back(op_name(op));
  nlohmann::json types = nlohmann::json::array();
  for (trncclDataType_t type : o.types) types.push_back(type_name(type));
  return {{"minbytes", o.min_bytes},   {"maxbytes", o.max_bytes}, {"stepfactor", o.step_factor},
          {"stepbytes", o.step_bytes}, {"iters", o.iters},        {"warmup_iters", o.warmup_iters},
          {"check", o.check},          {"blocking", o.blocking},  {"ops", ops},
          {"datatypes", types},        {"root", o.root},          {"algo", o.algorithm},
          {"mpi_peer", o.mpi_peer}};
}

}  // namespace

std::string version_string(int version_code) {
  return std::to_string(version_code / 10000) + "." + std::to_string(version_code / 100 % 100) + "." +
         std::to_string(version_code % 100);
}

nlohmann::json report_json(const Options& options, const RunInfo& info, const std::vector<Row>& rows,
                           size_t wrong_total, double avg_busbw) {
  nlohmann::json row_list = nlohmann::json::array();
  for (const Row& row : rows) row_list.push_back(row_json(row, options.mpi_peer));
  return {{"tool", options.style == TableStyle::nccom ? "trnccl-nccom-test" : "trnccl-perf"},
          {"collective", collective_name(options.collective)},
          {"nranks", info.nranks},
          {"launch", info.launch},
          {"trnccl_version", version_string(info.version_code)},
          {"transport", info.transport},
          {"env", info.trnccl_env},
          {"options", options_json(options)},
          {"rows", row_list},
          {"summary", {{"out_of_bounds", wrong_total}, {"avg_busbw_gbps", avg_busbw}, {"ok", wrong_total == 0}}}};
}

}  // namespace trnccl::perf
