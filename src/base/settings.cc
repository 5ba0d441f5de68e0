#include "base/settings.h"

#include <algorithm>
#include <numeric>
#include <string_view>

#include "base/env.h"

namespace trnccl::settings {
namespace {

std::vector<std::string> choicesOf(const Form& form) {
  std::vector<std::string> choices;
  const std::string_view list = form.values;
  for (size_t start = 0; start < list.size();) {
    const size_t comma = std::min(list.find(", ", start), list.size());
    choices.emplace_back(list.substr(start, comma - start));
    start = comma + 2;
  }
  return choices;
}

// Levenshtein distance, one row at a time.
size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), size_t{0});
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row.back();
}

bool isDeclared(std::string_view name, std::span<const Setting* const> declared) {
  return std::any_of(declared.begin(), declared.end(), [&](const Setting* s) { return name == s->name; });
}

std::string rangeText(const Form& form) {
  // A bound that only keeps arithmetic from overflowing is no range a user needs.
  constexpr int64_t kUnbounded = int64_t{1} << 40;
  const std::string low = std::to_string(form.min);
  const std::string range = form.max >= kUnbounded ? ">= " + low : low + "-" + std::to_string(form.max);
  return *form.values == '\0' ? "integer " + range : std::string(form.values) + ", " + range;
}

std::string quotedChoices(const Form& form) {
  std::string text;
  for (const std::string& choice : choicesOf(form)) text += (text.empty() ? "`" : ", `") + choice + "`";
  return text;
}

std::string valuesText(const Form& form) {
  switch (form.type) {
    case Type::Integer:
      return rangeText(form);
    case Type::Boolean:
      return "`0`/`1`";
    case Type::Choice:
      return quotedChoices(form);
    case Type::Text:
      return form.values;
  }
  return "";
}

std::string defaultText(const Form& form) {
  switch (form.type) {
    case Type::Integer:
    case Type::Boolean:
      return std::to_string(form.defaultValue);
    case Type::Choice:
    case Type::Text:
      return form.fallback;
  }
  return "";
}

}  // namespace

int64_t readInt(const Setting& s) { return env::getInt(s.name, s.form.defaultValue, s.form.min, s.form.max); }

bool readBool(const Setting& s) { return env::getBool(s.name, s.form.defaultValue != 0); }

std::string readChoice(const Setting& s) { return readChoice(s, s.form.fallback); }

std::string readChoice(const Setting& s, const std::string& fallback) {
  return env::getChoice(s.name, fallback, choicesOf(s.form));
}

std::optional<std::string> readText(const Setting& s) { return env::get(s.name); }

std::string nearest(const std::string& name, std::span<const Setting* const> declared) {
  std::string best;
  size_t bestDistance = 3;  // a typo or two
  for (const Setting* s : declared) {
    const size_t distance = editDistance(name, s->name);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = s->name;
    }
  }
  return best;
}

std::vector<std::string> undeclared(const std::vector<std::string>& names, std::span<const Setting* const> declared,
                                    bool nearOnly) {
  std::vector<std::string> lines;
  for (const std::string& name : names) {
    if (!name.starts_with("TRNCCL_") || isDeclared(name, declared)) continue;
    const std::string near = nearest(name, declared);
    if (near.empty() && nearOnly) continue;
    lines.push_back(name + " is not a trnccl setting" + (near.empty() ? "" : "; did you mean " + near + "?"));
  }
  return lines;
}

std::string markdownTable(std::span<const Setting* const> declared) {
  std::vector<const Setting*> sorted(declared.begin(), declared.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const Setting* a, const Setting* b) { return std::string_view(a->name) < b->name; });
  std::string table = "| variable | values | default | what |\n|---|---|---|---|\n";
  for (const Setting* s : sorted)
    table += "| `" + std::string(s->name) + "` | " + valuesText(s->form) + " | " + defaultText(s->form) + " | " +
             s->meaning + (s->scope == Scope::Rank ? "; ranks may differ" : "") + " |\n";
  return table;
}

}  // namespace trnccl::settings
