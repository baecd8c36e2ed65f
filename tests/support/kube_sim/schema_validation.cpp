// Structural-schema checks: the subset of OpenAPI v3 a CRD schema uses (no CEL, no defaulting).
#include "tests/support/kube_sim/schema_validation.hpp"

#include <regex>

namespace br::kube_sim {

namespace {

using nlohmann::json;

std::string type_of(const json& v) {
  if (v.is_object()) return "object";
  if (v.is_array()) return "array";
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "integer";
  if (v.is_number_float()) return "number";
  return "null";
}

bool type_ok(const std::string& want, const json& v) {
  if (want.empty()) return true;
  const std::string have = type_of(v);
  if (want == "number") return have == "number" || have == "integer";
  if (want == "integer" && have == "number") {
    double d = v.get<double>();
    return d == static_cast<double>(static_cast<long long>(d));
  }
  return want == have;
}

void walk(const json& s, json& v, const std::string& path, std::vector<field_error>& errs,
          std::vector<std::string>* pruned) {
  if (v.is_null()) {
    if (!s.value("nullable", false)) {
      errs.push_back({"FieldValueInvalid", path, "Invalid value: \"null\": " + path +
                                                     " in body must be of type " +
                                                     s.value("type", std::string{"object"})});
    }
    return;
  }
  const std::string want = s.value("type", std::string{});
  const bool int_or_string = s.value("x-kubernetes-int-or-string", false);
  if (int_or_string) {
    if (!v.is_string() && !v.is_number_integer() && !v.is_number_unsigned()) {
      errs.push_back({"FieldValueInvalid", path,
                      "Invalid value: \"" + type_of(v) + "\": " + path +
                          " in body must be of type integer or string"});
    }
    return;
  }
  if (!type_ok(want, v)) {
    errs.push_back({"FieldValueInvalid", path,
                    "Invalid value: \"" + type_of(v) + "\": " + path +
                        " in body must be of type " + want + ": \"" + type_of(v) + "\""});
    return;
  }
  if (s.contains("enum") && s["enum"].is_array()) {
    bool found = false;
    for (const auto& e : s["enum"]) found = found || e == v;
    if (!found) {
      std::string allowed;
      for (const auto& e : s["enum"]) allowed += (allowed.empty() ? "" : ", ") + e.dump();
      errs.push_back({"FieldValueNotSupported", path,
                      "Unsupported value: " + v.dump() + ": supported values: " + allowed});
    }
  }
  if (v.is_number()) {
    const double d = v.get<double>();
    if (s.contains("minimum") && d < s["minimum"].get<double>())
      errs.push_back({"FieldValueInvalid", path,
                      "Invalid value: " + v.dump() + ": " + path + " in body should be greater than or equal to " + s["minimum"].dump()});
    if (s.contains("maximum") && d > s["maximum"].get<double>())
      errs.push_back({"FieldValueInvalid", path,
                      "Invalid value: " + v.dump() + ": " + path + " in body should be less than or equal to " + s["maximum"].dump()});
  }
  if (v.is_string()) {
    const auto& str = v.get_ref<const std::string&>();
    if (s.contains("minLength") && str.size() < s["minLength"].get<std::size_t>())
      errs.push_back({"FieldValueInvalid", path, "Invalid value: " + v.dump() + ": " + path + " in body should be at least " + s["minLength"].dump() + " chars long"});
    if (s.contains("maxLength") && str.size() > s["maxLength"].get<std::size_t>())
      errs.push_back({"FieldValueInvalid", path, "Invalid value: " + v.dump() + ": " + path + " in body should be at most " + s["maxLength"].dump() + " chars long"});
    if (s.contains("pattern") && s["pattern"].is_string()) {
      try {
        if (!std::regex_search(str, std::regex{s["pattern"].get<std::string>(), std::regex::ECMAScript}))
          errs.push_back({"FieldValueInvalid", path, "Invalid value: " + v.dump() + ": " + path + " in body should match '" + s["pattern"].get<std::string>() + "'"});
      } catch (const std::regex_error&) {
        // A pattern std::regex cannot compile is not enforced.
      }
    }
  }
  if (v.is_array()) {
    if (s.contains("minItems") && v.size() < s["minItems"].get<std::size_t>())
      errs.push_back({"FieldValueInvalid", path, "Invalid value: " + std::to_string(v.size()) + ": " + path + " in body should have at least " + s["minItems"].dump() + " items"});
    if (s.contains("maxItems") && v.size() > s["maxItems"].get<std::size_t>())
      errs.push_back({"FieldValueTooMany", path, "Too many: " + std::to_string(v.size()) + ": must have at most " + s["maxItems"].dump() + " items"});
    if (s.contains("items") && s["items"].is_object()) {
      for (std::size_t i = 0; i < v.size(); ++i)
        walk(s["items"], v[i], path + "[" + std::to_string(i) + "]", errs, pruned);
    }
  }
  if (v.is_object()) {
    const bool preserve = s.value("x-kubernetes-preserve-unknown-fields", false);
    const json props = s.value("properties", json::object());
    if (s.contains("required") && s["required"].is_array()) {
      for (const auto& r : s["required"]) {
        if (r.is_string() && !v.contains(r.get<std::string>()))
          errs.push_back({"FieldValueRequired", path + "." + r.get<std::string>(), "Required value"});
      }
    }
    const bool has_additional = s.contains("additionalProperties") && s["additionalProperties"].is_object();
    std::vector<std::string> unknown;
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string child = path + "." + it.key();
      if (props.contains(it.key())) {
        walk(props[it.key()], it.value(), child, errs, pruned);
      } else if (has_additional) {
        walk(s["additionalProperties"], it.value(), child, errs, pruned);
      } else if (!preserve && !(s.contains("additionalProperties") && s["additionalProperties"] == true)) {
        unknown.push_back(it.key());
      }
    }
    for (const auto& k : unknown) {
      if (pruned) pruned->push_back(path + "." + k);
      v.erase(k);  // pruning, as for structural schemas
    }
  }
}

}  // namespace

std::vector<field_error> validate_and_prune(const json& schema, json& object,
                                           std::vector<std::string>* pruned) {
  std::vector<field_error> errs;
  if (!schema.is_object() || !object.is_object()) return errs;
  const json props = schema.value("properties", json::object());
  std::vector<std::string> unknown;
  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string& k = it.key();
    if (k == "apiVersion" || k == "kind" || k == "metadata") continue;
    if (props.contains(k)) {
      walk(props[k], it.value(), k, errs, pruned);
    } else if (!schema.value("x-kubernetes-preserve-unknown-fields", false)) {
      unknown.push_back(k);
    }
  }
  if (schema.contains("required") && schema["required"].is_array()) {
    for (const auto& r : schema["required"]) {
      if (r.is_string() && !object.contains(r.get<std::string>()))
        errs.push_back({"FieldValueRequired", r.get<std::string>(), "Required value"});
    }
  }
  for (const auto& k : unknown) {
    if (pruned) pruned->push_back(k);
    object.erase(k);
  }
  return errs;
}

}  // namespace br::kube_sim
