// Whole-document parsing from JSON and YAML text.
#include "config/failover_group.hpp"

#include "config/group_validate.hpp"
#include "config/json_reader.hpp"
#include "config/yaml_json.hpp"

namespace br::config {
namespace {

void read_metadata(const json& v, object_meta& out, field_errors& errs) {
  json_reader r{v, "metadata", errs, /*strict=*/false};
  r.field("name", out.name)
      .field("namespace", out.namespace_name)
      .field("annotations", out.annotations)
      .field("labels", out.labels)
      .field("generation", out.generation)
      .field("resourceVersion", out.resource_version)
      .field("uid", out.uid);
}

void check_identity(const json* v, std::string_view key, std::string_view expected,
                    std::string& out, field_errors& errs) {
  if (!v) return;
  if (!v->is_string()) return type_error(std::string{key}, "string", *v, errs);
  out = v->get<std::string>();
  if (out != expected)
    errs.push_back(
        {std::string{key}, "must be \"" + std::string{expected} + "\", got \"" + out + "\""});
}

bool is_document(const json& doc) {
  for (const char* key : {"apiVersion", "kind", "metadata", "spec", "status"})
    if (doc.contains(key)) return true;
  return false;
}

}  // namespace

parse_result parse_group(const json& doc) {
  parse_result res;
  auto& g = res.group;
  auto& errs = res.errors;
  if (!doc.is_object()) {
    type_error("<document>", "object", doc, errs);
    res.readable = false;
    return res;
  }
  if (!is_document(doc)) {
    read(doc, "spec", g.spec, errs);
    return res;
  }
  json_reader r{doc, "", errs};
  check_identity(r.take("apiVersion"), "apiVersion", group_api_version, g.api_version, errs);
  check_identity(r.take("kind"), "kind", group_kind, g.kind, errs);
  if (const json* m = r.take("metadata")) read_metadata(*m, g.metadata, errs);
  if (const json* s = r.take("spec"))
    read(*s, "spec", g.spec, errs);
  else
    errs.push_back({"spec", "required"});
  r.field("status", g.status);
  r.done();
  return res;
}

parse_result parse_group_json(std::string_view text) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    parse_result res;
    res.errors.push_back({"<json>", e.what()});
    res.readable = false;
    return res;
  }
  return parse_group(doc);
}

parse_result parse_group_yaml(std::string_view text) {
  field_errors yaml_errs;
  json doc = yaml_to_json(text, yaml_errs);
  if (doc.is_null() && !yaml_errs.empty()) return {{}, std::move(yaml_errs), false};
  // Paths of a bare spec are rooted at "spec", as for a whole document.
  if (doc.is_object() && !is_document(doc))
    for (auto& e : yaml_errs)
      if (!e.path.empty() && e.path.front() != '<') e.path = "spec." + e.path;
  parse_result res = parse_group(doc);
  res.errors.insert(res.errors.begin(), yaml_errs.begin(), yaml_errs.end());
  return res;
}

namespace {

parse_result with_validation(parse_result res, run_mode mode) {
  // A document that is not even an object has nothing worth validating.
  if (!res.readable) return res;
  auto more = validate(res.group, mode);
  res.errors.insert(res.errors.end(), more.begin(), more.end());
  return res;
}

}  // namespace

parse_result load_group_json(std::string_view text, run_mode mode) {
  return with_validation(parse_group_json(text), mode);
}

parse_result load_group_yaml(std::string_view text, run_mode mode) {
  return with_validation(parse_group_yaml(text), mode);
}

json to_json(const failover_group& g) {
  json j = {{"apiVersion", g.api_version}, {"kind", g.kind}};
  j["metadata"] = to_json(g.metadata);
  j["spec"] = to_json(g.spec);
  if (g.status) j["status"] = *g.status;
  return j;
}

}  // namespace br::config
