#include <CLI/CLI.hpp>
#include <catch2/catch.hpp>

#include "cli/command_line.h"

using namespace trnccl;

namespace {

struct Parsed {
  int count = 0;
  bool verbose = false;
  std::string name;
};

// A command line with an integer, a flag and a string, as the tools build theirs.
Parsed parse(std::initializer_list<const char*> args, std::string_view unknown = "unknown argument") {
  Parsed p;
  CLI::App app;
  cli::prepare(app);
  cli::addInt(app, "-c,--count", p.count, 0, 10);
  app.add_flag("-v,--verbose", p.verbose);
  cli::addText(app, "--name", p.name);
  cli::addValue(
      app, "--size", [](const std::string&) {}, "<bytes>");
  cli::parse(app, std::vector<std::string>(args.begin(), args.end()), unknown);
  return p;
}

}  // namespace

TEST_CASE("cli::parse reads every spelling of a value", "[cli]") {
  CHECK(parse({"-c", "3"}).count == 3);
  CHECK(parse({"-c4"}).count == 4);
  CHECK(parse({"--count", "5"}).count == 5);
  CHECK(parse({"--count=6"}).count == 6);
  CHECK(parse({"-c", "1", "--count", "2"}).count == 2);
  CHECK(parse({"--name", "-v"}).name == "-v");
  const Parsed p = parse({"-v", "--name=x=y"});
  CHECK(p.verbose);
  CHECK(p.name == "x=y");
}

TEST_CASE("cli::parse names the flag and the value it cannot use", "[cli]") {
  CHECK_THROWS_AS(parse({"-c", "11"}), cli::UsageError);
  CHECK_THROWS_WITH(parse({"-c", "11"}), "invalid value '11' for -c: expected an integer from 0 to 10");
  CHECK_THROWS_WITH(parse({"--count", "2x"}), Catch::Contains("invalid value '2x'"));
  CHECK_THROWS_WITH(parse({"--count"}), "--count needs a value");
  CHECK_THROWS_WITH(parse({"-v", "-c"}), "-c needs a value");
  CHECK_THROWS_WITH(parse({"--size"}), "--size needs a value <bytes>");
  CHECK_THROWS_WITH(parse({"-vc"}), "-vc needs a value");
  CHECK_THROWS_WITH(parse({"--verbose=1"}), "--verbose takes no value");
  CHECK_THROWS_WITH(parse({"--bogus", "1"}), "unknown argument '--bogus'");
  CHECK_THROWS_WITH(parse({"stray"}), "unknown argument 'stray'");
  CHECK_THROWS_WITH(parse({"-q"}, "unknown flag"), "unknown flag '-q'");
}

TEST_CASE("cli::parseInt states the range it expects", "[cli]") {
  CHECK(cli::parseInt("-n", "0", 0, 1) == 0);
  CHECK_THROWS_WITH(cli::parseInt("-n", "0", 1, 2147483647), "invalid value '0' for -n: expected an integer >= 1");
  CHECK_THROWS_WITH(cli::parseInt("-n", "", 1, 2), Catch::Contains("from 1 to 2"));
}
