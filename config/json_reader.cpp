// Leaf readers and the strict object reader.
#include "config/json_reader.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

namespace br::config {
namespace {

std::string lower(std::string_view s) {
  std::string out{s};
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

template <class Int>
void read_integer(const json& v, const std::string& path, Int& out, std::string_view what,
                  field_errors& errs) {
  if (v.is_number_unsigned()) {
    auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<Int>::max()))
      return errs.push_back(
          {path, "value " + std::to_string(u) + " out of range for " + std::string{what}});
    out = static_cast<Int>(u);
  } else if (v.is_number_integer()) {
    auto i = v.get<std::int64_t>();
    if constexpr (std::is_unsigned_v<Int>) {
      if (i < 0)
        return errs.push_back(
            {path, "value " + std::to_string(i) + " out of range for " + std::string{what}});
    } else {
      if (i < std::numeric_limits<Int>::min() || i > std::numeric_limits<Int>::max())
        return errs.push_back(
            {path, "value " + std::to_string(i) + " out of range for " + std::string{what}});
    }
    out = static_cast<Int>(i);
  } else {
    type_error(path, "integer", v, errs);
  }
}

}  // namespace

std::string_view json_type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "object";
    case json::value_t::array:
      return "array";
    case json::value_t::string:
      return "string";
    case json::value_t::boolean:
      return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "integer";
    case json::value_t::number_float:
      return "number";
    default:
      return "binary";
  }
}

void type_error(const std::string& path, std::string_view expected, const json& got,
                field_errors& errs) {
  std::string msg =
      "expected " + std::string{expected} + ", got " + std::string{json_type_name(got)};
  if (expected == "string" && (got.is_number() || got.is_boolean()))
    msg += " (quote the value in YAML)";
  errs.push_back({path, std::move(msg)});
}

void read(const json& v, const std::string& path, std::string& out, field_errors& errs) {
  if (!v.is_string()) return type_error(path, "string", v, errs);
  out = v.get<std::string>();
}

void read(const json& v, const std::string& path, bool& out, field_errors& errs) {
  if (!v.is_boolean()) return type_error(path, "boolean", v, errs);
  out = v.get<bool>();
}

void read(const json& v, const std::string& path, std::int32_t& out, field_errors& errs) {
  read_integer(v, path, out, "a 32-bit integer", errs);
}

void read(const json& v, const std::string& path, std::int64_t& out, field_errors& errs) {
  read_integer(v, path, out, "a 64-bit integer", errs);
}

void read(const json& v, const std::string& path, std::uint32_t& out, field_errors& errs) {
  read_integer(v, path, out, "an unsigned 32-bit integer", errs);
}

void read(const json& v, const std::string& path, std::uint64_t& out, field_errors& errs) {
  read_integer(v, path, out, "an unsigned 64-bit integer", errs);
}

void read(const json& v, const std::string& path, duration& out, field_errors& errs) {
  if (!v.is_string()) return type_error(path, "duration string like \"30s\"", v, errs);
  auto parsed = parse_duration(v.get_ref<const std::string&>());
  if (!parsed) return errs.push_back({path, parsed.error});
  out = *parsed.value;
}

void read(const json& v, const std::string& path, timestamp& out, field_errors& errs) {
  if (!v.is_string()) return type_error(path, "RFC 3339 timestamp string", v, errs);
  auto parsed = parse_rfc3339(v.get_ref<const std::string&>());
  if (!parsed)
    return errs.push_back({path, "invalid RFC 3339 timestamp \"" + v.get<std::string>() + "\""});
  out = *parsed;
}

void read(const json& v, const std::string&, json& out, field_errors&) {
  out = v;
}

json_reader::json_reader(const json& object, std::string path, field_errors& errs, bool strict)
    : object_(&object),
      path_(std::move(path)),
      errs_(&errs),
      strict_(strict),
      ok_(object.is_object()) {
  if (!ok_) type_error(path_.empty() ? "<document>" : path_, "object", object, errs);
}

std::string json_reader::child(std::string_view key) const {
  return path_.empty() ? std::string{key} : path_ + "." + std::string{key};
}

const json* json_reader::take(std::string_view key) {
  known_.emplace_back(key);
  if (!ok_) return nullptr;
  auto it = object_->find(key);
  if (it == object_->end() || it->is_null()) return nullptr;
  return &*it;
}

json_reader& json_reader::unsupported(std::initializer_list<std::string_view> keys) {
  for (auto key : keys) {
    if (take(key))
      errs_->push_back({child(key),
                        "field of the Bloodraven v1alpha1 API that this implementation does not "
                        "support yet; remove it"});
  }
  return *this;
}

json_reader& json_reader::ignored(std::initializer_list<std::string_view> keys) {
  for (auto key : keys) take(key);
  return *this;
}

void json_reader::done() {
  if (!ok_ || !strict_) return;
  for (const auto& [key, value] : object_->items()) {
    if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
    std::string msg = "unknown field \"" + key + "\"";
    const std::string* best = nullptr;
    std::size_t best_distance = 3;
    for (const auto& candidate : known_) {
      std::size_t d = lower(candidate) == lower(key) ? 0 : edit_distance(key, candidate);
      if (d < best_distance) {
        best_distance = d;
        best = &candidate;
      }
    }
    if (best) msg += " (did you mean \"" + *best + "\"?)";
    errs_->push_back({child(key), std::move(msg)});
  }
}

}  // namespace br::config
