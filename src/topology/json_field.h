// A value inside a topology file together with where it sits, so that every
// complaint names the file and the JSON pointer of the offending value
// ("trn.json: /links/3/b: chip 17 does not exist").
#pragma once

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace trnccl::topo {

class JsonField {
 public:
  JsonField(const nlohmann::json& value, const std::string& file, nlohmann::json::json_pointer where);

  // Refuses members not in `known`, so a misspelt field is not silently ignored.
  void allowOnly(std::initializer_list<const char*> known) const;
  JsonField operator[](const char* key) const;  // a member that must be there
  std::optional<JsonField> find(const char* key) const;
  bool isArray() const { return value_.is_array(); }
  size_t size() const;                       // of an array
  JsonField operator[](size_t index) const;  // of an array

  int asInt(int min, int max) const;
  double asPositive() const;     // > 0
  double asNonNegative() const;  // >= 0
  std::string asString() const;

  [[noreturn]] void fail(const std::string& problem) const;
  // Fails about member `key`, there or not ("missing field ...").
  [[noreturn]] void failAt(const char* key, const std::string& problem) const;

 private:
  const nlohmann::json& value_;
  const std::string& file_;
  nlohmann::json::json_pointer where_;
};

}  // namespace trnccl::topo
