// YAML to JSON conversion over yaml-cpp nodes.
#include "config/yaml_json.hpp"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cstdlib>
#include <regex>
#include <string>

namespace br::config {
namespace {

using json = nlohmann::json;

json plain_scalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  static const std::regex dec{"[-+]?[0-9]+"};
  static const std::regex oct{"0o[0-7]+"};
  static const std::regex hex{"0x[0-9a-fA-F]+"};
  static const std::regex flt{R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)"};
  auto to_int = [&](std::string_view digits, int base) -> json {
    bool negative = !digits.empty() && digits.front() == '-';
    if (!digits.empty() && (digits.front() == '-' || digits.front() == '+'))
      digits.remove_prefix(1);
    std::uint64_t u = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), u, base);
    if (ec != std::errc{} || end != digits.data() + digits.size())
      return std::strtod(s.c_str(), nullptr);
    if (!negative) return u;
    if (u <= static_cast<std::uint64_t>(INT64_MAX) + 1) return static_cast<std::int64_t>(0 - u);
    return std::strtod(s.c_str(), nullptr);
  };
  if (std::regex_match(s, dec)) return to_int(s, 10);
  if (std::regex_match(s, oct)) return to_int(std::string_view{s}.substr(2), 8);
  if (std::regex_match(s, hex)) return to_int(std::string_view{s}.substr(2), 16);
  if (std::regex_match(s, flt)) return std::strtod(s.c_str(), nullptr);
  // .inf and .nan have no JSON form; they stay strings and fail type checks visibly.
  return s;
}

std::string at(const std::string& path) {
  return path.empty() ? "<document>" : path;
}

json convert(const YAML::Node& node, const std::string& path, field_errors& errs) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      // yaml-cpp tags plain scalars "?" and quoted or block scalars "!".
      if (node.Tag() == "?") return plain_scalar(node.Scalar());
      if (node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str") return node.Scalar();
      errs.push_back({at(path), "unsupported YAML tag \"" + node.Tag() + "\""});
      return node.Scalar();
    case YAML::NodeType::Sequence: {
      json out = json::array();
      std::size_t i = 0;
      for (const auto& item : node)
        out.push_back(convert(item, path + "[" + std::to_string(i++) + "]", errs));
      return out;
    }
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) {
          errs.push_back({at(path), "mapping keys must be scalars"});
          continue;
        }
        const std::string& key = kv.first.Scalar();
        std::string child = path.empty() ? key : path + "." + key;
        if (out.contains(key)) {
          errs.push_back({child, "duplicate key \"" + key + "\""});
          continue;
        }
        out[key] = convert(kv.second, child, errs);
      }
      return out;
    }
  }
  return nullptr;
}

}  // namespace

nlohmann::json yaml_to_json(std::string_view text, field_errors& errs) {
  try {
    auto docs = YAML::LoadAll(std::string{text});
    if (docs.empty()) {
      errs.push_back({"<yaml>", "empty document"});
      return nullptr;
    }
    if (docs.size() > 1) {
      errs.push_back(
          {"<yaml>", "expected one YAML document, found " + std::to_string(docs.size())});
    }
    return convert(docs.front(), "", errs);
  } catch (const YAML::Exception& e) {
    errs.push_back({"<yaml>", "line " + std::to_string(e.mark.line + 1) + ", column " +
                                  std::to_string(e.mark.column + 1) + ": " + e.msg});
    return nullptr;
  }
}

}  // namespace br::config
