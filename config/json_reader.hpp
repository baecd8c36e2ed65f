// Strict, path-tracking reader from nlohmann::json into typed structs, collecting every error.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/duration.hpp"
#include "config/field_error.hpp"
#include "config/rfc3339.hpp"

namespace br::config {

using json = nlohmann::json;

/// "string", "integer", "number", "boolean", "object", "array" or "null".
std::string_view json_type_name(const json& v);

/// Records "expected <what>, got <type>" at path.
void type_error(const std::string& path, std::string_view expected, const json& got,
                field_errors& errs);

// Leaf readers. Each leaves `out` unchanged and records an error when the value does not fit.
void read(const json& v, const std::string& path, std::string& out, field_errors& errs);
void read(const json& v, const std::string& path, bool& out, field_errors& errs);
void read(const json& v, const std::string& path, std::int32_t& out, field_errors& errs);
void read(const json& v, const std::string& path, std::int64_t& out, field_errors& errs);
void read(const json& v, const std::string& path, std::uint32_t& out, field_errors& errs);
void read(const json& v, const std::string& path, std::uint64_t& out, field_errors& errs);
void read(const json& v, const std::string& path, duration& out, field_errors& errs);
void read(const json& v, const std::string& path, timestamp& out, field_errors& errs);
void read(const json& v, const std::string& path, json& out, field_errors& errs);

/// Reads a string and maps it through `table`; unknown values list the supported ones.
template <class E>
void read_enum(const json& v, const std::string& path, E& out,
               std::initializer_list<std::pair<std::string_view, E>> table, field_errors& errs) {
  if (!v.is_string()) return type_error(path, "string", v, errs);
  const auto& s = v.get_ref<const std::string&>();
  std::string supported;
  for (const auto& [name, value] : table) {
    if (s == name) {
      out = value;
      return;
    }
    supported += (supported.empty() ? "\"" : ", \"") + std::string{name} + "\"";
  }
  errs.push_back({path, "unsupported value \"" + s + "\": supported values: " + supported});
}

template <class T>
void read(const json& v, const std::string& path, std::optional<T>& out, field_errors& errs) {
  T value = out.value_or(T{});
  auto before = errs.size();
  read(v, path, value, errs);
  if (errs.size() == before) out = std::move(value);
}

template <class T>
void read(const json& v, const std::string& path, std::vector<T>& out, field_errors& errs) {
  if (!v.is_array()) return type_error(path, "array", v, errs);
  out.clear();
  for (std::size_t i = 0; i < v.size(); ++i) {
    T item{};
    read(v[i], path + "[" + std::to_string(i) + "]", item, errs);
    out.push_back(std::move(item));
  }
}

template <class T>
void read(const json& v, const std::string& path, std::map<std::string, T>& out,
          field_errors& errs) {
  if (!v.is_object()) return type_error(path, "object", v, errs);
  out.clear();
  for (const auto& [key, item] : v.items()) {
    T value{};
    read(item, path + "[" + key + "]", value, errs);
    out.emplace(key, std::move(value));
  }
}

/// Reads the members of one JSON object. Absent and null members keep their defaults. In strict
/// mode done() reports every member no field() call asked for, with a spelling suggestion.
class json_reader {
 public:
  json_reader(const json& object, std::string path, field_errors& errs, bool strict = true);

  /// False when the value was not an object (a type error has been recorded).
  bool ok() const { return ok_; }

  template <class T>
  json_reader& field(std::string_view key, T& out) {
    if (const json* v = take(key)) read(*v, child(key), out, *errs_);
    return *this;
  }

  /// Raw access for members that need custom handling; marks the key as known.
  const json* take(std::string_view key);

  /// Members of the reference API that this implementation does not support yet: reported as
  /// errors of their own kind so users migrating manifests see exactly what is missing.
  json_reader& unsupported(std::initializer_list<std::string_view> keys);

  /// Members that are accepted and ignored (e.g. server-populated metadata).
  json_reader& ignored(std::initializer_list<std::string_view> keys);

  void done();

  std::string child(std::string_view key) const;
  const std::string& path() const { return path_; }

 private:
  const json* object_;
  std::string path_;
  field_errors* errs_;
  bool strict_;
  bool ok_;
  std::vector<std::string> known_;
};

}  // namespace br::config
