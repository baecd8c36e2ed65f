// Pod and Service shaping members of the spec: strict readers and canonical JSON.
#include "config/pod_spec.hpp"

#include "config/json_reader.hpp"

namespace br::config {

void read(const json& v, const std::string& path, resource_requirements& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("requests", out.requests).field("limits", out.limits).unsupported({"claims"}).done();
}

void read(const json& v, const std::string& path, toleration_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("key", out.key)
      .field("operator", out.op)
      .field("value", out.value)
      .field("effect", out.effect)
      .field("tolerationSeconds", out.toleration_seconds)
      .done();
}

void read(const json& v, const std::string& path, service_port_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("name", out.name)
      .field("port", out.port)
      .field("targetPort", out.target_port)
      .field("protocol", out.protocol)
      .field("nodePort", out.node_port)
      .done();
}

void read(const json& v, const std::string& path, service_template_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  if (const json* md = r.take("metadata")) {
    json_reader m{*md, r.child("metadata"), errs};
    m.field("labels", out.labels).field("annotations", out.annotations).done();
  }
  if (const json* spec = r.take("spec")) {
    json_reader s{*spec, r.child("spec"), errs};
    s.field("type", out.type)
        .field("externalTrafficPolicy", out.external_traffic_policy)
        .field("ports", out.ports)
        .done();
  }
  r.done();
}

json to_json(const resource_requirements& r) {
  json j = json::object();
  if (!r.requests.empty()) j["requests"] = r.requests;
  if (!r.limits.empty()) j["limits"] = r.limits;
  return j;
}

json to_json(const toleration_spec& t) {
  json j = json::object();
  if (!t.key.empty()) j["key"] = t.key;
  if (!t.op.empty()) j["operator"] = t.op;
  if (!t.value.empty()) j["value"] = t.value;
  if (!t.effect.empty()) j["effect"] = t.effect;
  if (t.toleration_seconds) j["tolerationSeconds"] = *t.toleration_seconds;
  return j;
}

json to_json(const service_template_spec& s) {
  json j = json::object();
  json md = json::object();
  if (!s.labels.empty()) md["labels"] = s.labels;
  if (!s.annotations.empty()) md["annotations"] = s.annotations;
  if (!md.empty()) j["metadata"] = md;
  json spec = {{"type", s.type}};
  if (!s.external_traffic_policy.empty())
    spec["externalTrafficPolicy"] = s.external_traffic_policy;
  if (!s.ports.empty()) {
    json ports = json::array();
    for (const auto& p : s.ports) {
      json pj = {{"name", p.name}, {"port", p.port}, {"protocol", p.protocol}};
      if (p.target_port) pj["targetPort"] = *p.target_port;
      if (p.node_port) pj["nodePort"] = *p.node_port;
      ports.push_back(std::move(pj));
    }
    spec["ports"] = std::move(ports);
  }
  j["spec"] = std::move(spec);
  return j;
}

}  // namespace br::config
