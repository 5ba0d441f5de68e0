#include "topology/json_field.h"

#include <cmath>

#include "base/error.h"

namespace trnccl::topo {

namespace {

// "found an array", "found a string"
std::string found(const nlohmann::json& v) {
  const std::string type = v.type_name();
  if (v.is_null()) return "found null";
  return (type.front() == 'a' || type.front() == 'o' ? "found an " : "found a ") + type;
}

}  // namespace

JsonField::JsonField(const nlohmann::json& value, const std::string& file, nlohmann::json::json_pointer where)
    : value_(value), file_(file), where_(std::move(where)) {}

void JsonField::fail(const std::string& problem) const {
  const std::string at = where_.empty() ? "(top level)" : where_.to_string();
  throwError(trncclInvalidArgument, file_ + ": " + at + ": " + problem);
}

void JsonField::allowOnly(std::initializer_list<const char*> known) const {
  if (!value_.is_object()) fail("expected an object, " + found(value_));
  for (const auto& [key, member] : value_.items()) {
    bool isKnown = false;
    std::string list;
    for (const char* k : known) {
      isKnown = isKnown || key == k;
      list += (list.empty() ? "" : ", ") + std::string(k);
    }
    if (!isKnown) JsonField(member, file_, where_ / key).fail("unknown field (known here: " + list + ")");
  }
}

std::optional<JsonField> JsonField::find(const char* key) const {
  if (!value_.is_object()) fail("expected an object, " + found(value_));
  auto it = value_.find(key);
  if (it == value_.end()) return std::nullopt;
  return JsonField(*it, file_, where_ / key);
}

void JsonField::failAt(const char* key, const std::string& problem) const {
  JsonField(value_, file_, where_ / key).fail(problem);
}

JsonField JsonField::operator[](const char* key) const {
  auto member = find(key);
  if (!member) failAt(key, "missing field");
  return *member;
}

size_t JsonField::size() const {
  if (!value_.is_array()) fail("expected an array, " + found(value_));
  return value_.size();
}

JsonField JsonField::operator[](size_t index) const {
  if (index >= size()) fail("has no element " + std::to_string(index));
  return JsonField(value_[index], file_, where_ / index);
}

int JsonField::asInt(int min, int max) const {
  if (!value_.is_number_integer()) fail("expected an integer, " + found(value_));
  const auto v = value_.get<long long>();
  if (v < min || v > max) {
    fail(std::to_string(v) + " is out of range (" + std::to_string(min) + " to " + std::to_string(max) + ")");
  }
  return static_cast<int>(v);
}

double JsonField::asNonNegative() const {
  if (!value_.is_number()) fail("expected a number, " + found(value_));
  const double v = value_.get<double>();
  if (!std::isfinite(v)) fail("is not a finite number");
  if (v < 0) fail(value_.dump() + " is negative (expected a number >= 0)");
  return v;
}

double JsonField::asPositive() const {
  const double v = asNonNegative();
  if (v == 0) fail("is zero (expected a number > 0)");
  return v;
}

std::string JsonField::asString() const {
  if (!value_.is_string()) fail("expected a string, " + found(value_));
  return value_.get<std::string>();
}

}  // namespace trnccl::topo
