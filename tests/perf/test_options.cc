#include <catch2/catch.hpp>

#include "logic/options.h"
#include "logic/usage_error.h"

using namespace trnccl::perf;

namespace {

Options parse(std::initializer_list<const char*> args) {
  return parse_args(std::vector<std::string>(args.begin(), args.end()));
}

}  // namespace

TEST_CASE("parse_args keeps nccl-tests' defaults", "[perf][options]") {
  const Options o = parse({"all_reduce"});
  CHECK(o.collective == Collective::AllReduce);
  CHECK(o.min_bytes == 32u << 20);
  CHECK(o.max_bytes == 32u << 20);
  CHECK(o.step_factor == 1);
  CHECK(o.step_bytes == 1u << 20);
  CHECK(o.iters == 20);
  CHECK(o.warmup_iters == 5);
  CHECK(o.check);
  CHECK(o.ops == std::vector<trncclRedOp_t>{trncclSum});
  CHECK(o.types == std::vector<trncclDataType_t>{trncclFloat32});
  CHECK(o.root == 0);
  CHECK_FALSE(o.blocking);
  CHECK(o.threads == 1);
  CHECK(o.json_path.empty());
  CHECK(o.algorithm.empty());
  CHECK_FALSE(o.mpi_peer);
}

TEST_CASE("parse_args reads every flag, short and long", "[perf][options]") {
  const Options o = parse({"-b", "8",  "-e", "64M",      "-f",  "8",    "-i",       "4K", "-n", "3",  "-w",
                           "0",  "-c", "0",  "-o",       "max", "-d",   "bfloat16", "-r", "1",  "-z", "1",
                           "-t", "4",  "-J", "out.json", "-A",  "ring", "reduce",   "-m", "1"});
  CHECK(o.collective == Collective::Reduce);
  CHECK(o.min_bytes == 8);
  CHECK(o.max_bytes == 64u << 20);
  CHECK(o.step_factor == 8);
  CHECK(o.step_bytes == 4096);
  CHECK(o.iters == 3);
  CHECK(o.warmup_iters == 0);
  CHECK_FALSE(o.check);
  CHECK(o.ops == std::vector<trncclRedOp_t>{trncclMax});
  CHECK(o.types == std::vector<trncclDataType_t>{trncclBfloat16});
  CHECK(o.root == 1);
  CHECK(o.blocking);
  CHECK(o.threads == 4);
  CHECK(o.json_path == "out.json");
  CHECK(o.algorithm == "ring");
  CHECK(o.mpi_peer);

  const Options l =
      parse({"--minbytes=1K", "--maxbytes", "2K", "--stepfactor", "2", "--datatype", "all", "--op=all", "sendrecv"});
  CHECK(l.min_bytes == 1024);
  CHECK(l.max_bytes == 2048);
  CHECK(l.step_factor == 2);
  CHECK(l.types.size() == trncclNumTypes);
  CHECK(l.ops == std::vector<trncclRedOp_t>{trncclSum, trncclProd, trncclMax, trncclMin, trncclAvg});
  CHECK(l.collective == Collective::SendRecv);
}

TEST_CASE("parse_args: -d takes nccl-tests' type names and the short ones", "[perf][options]") {
  CHECK(parse({"all_reduce", "-d", "bf16"}).types == std::vector<trncclDataType_t>{trncclBfloat16});
  CHECK(parse({"all_reduce", "-d", "fp16"}).types == std::vector<trncclDataType_t>{trncclFloat16});
  CHECK(parse({"all_reduce", "-d", "fp32"}).types == std::vector<trncclDataType_t>{trncclFloat32});
  CHECK(parse({"all_reduce", "-d", "fp8e4m3"}).types == std::vector<trncclDataType_t>{trncclFloat8e4m3});
  CHECK(parse({"all_reduce", "-d", "i64"}).types == std::vector<trncclDataType_t>{trncclInt64});
}

TEST_CASE("parse_args takes a value attached to a short flag", "[perf][options]") {
  const Options o = parse({"-b8", "-e1M", "-dint8", "broadcast"});
  CHECK(o.min_bytes == 8);
  CHECK(o.max_bytes == 1u << 20);
  CHECK(o.types == std::vector<trncclDataType_t>{trncclInt8});
}

TEST_CASE("parse_args with -h needs no collective", "[perf][options]") {
  CHECK(parse({"-h"}).help);
  CHECK(parse({"--help"}).help);
}

TEST_CASE("parse_args names what is wrong", "[perf][options]") {
  CHECK_THROWS_WITH(parse({}), Catch::Contains("no collective"));
  CHECK_THROWS_WITH(parse({"allreduce"}), Catch::Contains("unknown collective 'allreduce'"));
  CHECK_THROWS_WITH(parse({"all_reduce", "extra"}), Catch::Contains("unexpected argument 'extra'"));
  CHECK_THROWS_WITH(parse({"all_reduce", "-q"}), Catch::Contains("unknown flag '-q'"));
  CHECK_THROWS_WITH(parse({"all_reduce", "--bogus=1"}), Catch::Contains("unknown flag"));
  CHECK_THROWS_WITH(parse({"all_reduce", "-n"}), Catch::Contains("-n needs a value"));
  CHECK_THROWS_WITH(parse({"all_reduce", "-n", "0"}), Catch::Contains("-n"));
  CHECK_THROWS_WITH(parse({"all_reduce", "-n", "5x"}), Catch::Contains("invalid value '5x'"));
  CHECK_THROWS_WITH(parse({"all_reduce", "-c", "2"}), Catch::Contains("from 0 to 1"));
  CHECK_THROWS_WITH(parse({"all_reduce", "-z", "-1"}), Catch::Contains("-z"));
  CHECK_THROWS_WITH(parse({"all_reduce", "-t", "0"}), Catch::Contains("-t"));
  CHECK_THROWS_WITH(parse({"all_reduce", "-f", "0"}), Catch::Contains("-f"));
  CHECK_THROWS_WITH(parse({"all_reduce", "-o", "mean"}), Catch::Contains("unknown op 'mean'"));
  CHECK_THROWS_WITH(parse({"all_reduce", "-d", "fp33"}), Catch::Contains("unknown datatype 'fp33'"));
  CHECK_THROWS_WITH(parse({"all_reduce", "-b", "1Q"}), Catch::Contains("invalid size '1Q'"));
  CHECK_THROWS_WITH(parse({"all_reduce", "-b", "2M", "-e", "1M"}), Catch::Contains("larger than maxbytes"));
  CHECK_THROWS_WITH(parse({"all_reduce", "-J", ""}), Catch::Contains("file name"));
  CHECK_THROWS_WITH(parse({"all_reduce", "--help=1"}), Catch::Contains("takes no value"));
}

TEST_CASE("check_launch refuses what the launch cannot do", "[perf][options]") {
  const Options peer = parse({"all_reduce", "-m", "1"});
  CHECK_THROWS_WITH(check_launch(peer, 2, false), Catch::Contains("mpirun"));
  CHECK_NOTHROW(check_launch(peer, 2, true));

  const Options threads = parse({"all_reduce", "-t", "2"});
  CHECK_THROWS_WITH(check_launch(threads, 4, true), Catch::Contains("-t"));
  CHECK_NOTHROW(check_launch(threads, 2, false));

  const Options root = parse({"broadcast", "-r", "2"});
  CHECK_THROWS_WITH(check_launch(root, 2, false), Catch::Contains("root 2"));
  CHECK_NOTHROW(check_launch(root, 3, false));
  CHECK_NOTHROW(check_launch(parse({"all_gather", "-r", "5"}), 2, false));  // no root: ignored
}

TEST_CASE("usage_text lists every flag", "[perf][options]") {
  const std::string usage = usage_text();
  for (const char* flag : {"-t,", "-b,", "-e,", "-i,", "-f,", "-n,", "-w,", "-c,", "-o,", "-d,", "-r,", "-z,", "-J,",
                           "-A,", "-m,", "-h,"}) {
    CHECK_THAT(usage, Catch::Contains(flag));
  }
}

TEST_CASE("parse_args takes --name=value, -xvalue and a flag given twice as before", "[perf][options]") {
  const Options o = parse({"--iters=7", "-w3", "--root", "2", "-n", "9", "--op", "min", "-omax", "broadcast"});
  CHECK(o.iters == 9);  // the last -n wins
  CHECK(o.warmup_iters == 3);
  CHECK(o.root == 2);
  CHECK(o.ops == std::vector<trncclRedOp_t>{trncclMax});
  CHECK(parse({"-t", "2", "--nthreads=3", "all_gather"}).threads == 3);
}

TEST_CASE("parse_args: a flag takes the next argument even when it starts with a dash", "[perf][options]") {
  CHECK_THROWS_WITH(parse({"all_reduce", "-n", "-w"}), Catch::Contains("invalid value '-w' for -n"));
  CHECK_THROWS_WITH(parse({"all_reduce", "--iters"}), "--iters needs a value <count>");
  CHECK_THROWS_WITH(parse({"all_reduce", "--bogus"}), Catch::Contains("unknown flag '--bogus'"));
  CHECK_THROWS_WITH(parse({"-x", "all_reduce"}), Catch::Contains("unknown flag '-x'"));
  CHECK_THROWS_WITH(parse({"all_reduce", "-A", ""}), Catch::Contains("algorithm name"));
}

TEST_CASE("parse_args with -h still refuses a bad flag", "[perf][options]") {
  CHECK_THROWS_WITH(parse({"-h", "-q"}), Catch::Contains("unknown flag '-q'"));
  CHECK(parse({"-h", "all_reduce", "-n", "3"}).help);
}
