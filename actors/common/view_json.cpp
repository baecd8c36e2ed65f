// JSON forms of the topology view (nlohmann::json; RFC3339 through config/rfc3339).
#include "actors/common/view_json.hpp"

#include <nlohmann/json.hpp>

#include "config/rfc3339.hpp"

namespace br {

using json = nlohmann::json;

std::string view_to_json(const topology_view& v) {
  json j;
  j["activeSite"] = v.active_site;
  j["deposing"] = v.deposing;
  j["epoch"] = v.epoch;
  j["observedAt"] = config::format_rfc3339(
      config::timestamp{std::chrono::milliseconds{v.observed_at_ms}});
  if (!v.signature.empty()) j["signature"] = v.signature;
  return j.dump();
}

namespace {

bool read_observed_at(const json& j, int64_t& out) {
  auto t = config::parse_rfc3339(j.get_ref<const std::string&>());
  if (!t) return false;
  out = t->time_since_epoch().count();
  return true;
}

}  // namespace

std::optional<topology_view> parse_view_answer(const std::string& body) {
  auto j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  auto a = j.find("activeSite");
  if (a == j.end() || !a->is_string()) return std::nullopt;
  topology_view v;
  v.active_site = a->get<std::string>();
  if (auto e = j.find("epoch"); e != j.end()) {
    if (!e->is_number_unsigned()) return std::nullopt;
    v.epoch = e->get<uint64_t>();
  }
  if (auto d = j.find("deposing"); d != j.end() && d->is_string()) v.deposing = d->get<std::string>();
  if (auto o = j.find("observedAt"); o != j.end() && o->is_string()) read_observed_at(*o, v.observed_at_ms);
  if (auto g = j.find("signature"); g != j.end() && g->is_string()) v.signature = g->get<std::string>();
  return v;
}

pushed_view_parse parse_pushed_view(const std::string& body) {
  pushed_view_parse out;
  auto j = json::parse(body, nullptr, false);
  if (j.is_discarded()) {
    out.error = "malformed JSON";
    return out;
  }
  if (!j.is_object()) {
    out.error = "the body must be a JSON object";
    return out;
  }
  for (const char* f : {"epoch", "activeSite", "deposing", "observedAt"})
    if (!j.contains(f)) {
      out.error = std::string("missing field \"") + f + "\"";
      return out;
    }
  topology_view v;
  if (!j["epoch"].is_number_unsigned()) {
    out.error = "field \"epoch\" must be a non-negative integer";
    return out;
  }
  v.epoch = j["epoch"].get<uint64_t>();
  for (auto [name, dst] : {std::pair{"activeSite", &v.active_site}, std::pair{"deposing", &v.deposing}}) {
    if (!j[name].is_string()) {
      out.error = std::string("field \"") + name + "\" must be a string";
      return out;
    }
    *dst = j[name].get<std::string>();
  }
  if (!j["observedAt"].is_string() || !read_observed_at(j["observedAt"], v.observed_at_ms)) {
    out.error = "field \"observedAt\" must be an RFC3339 timestamp";
    return out;
  }
  if (!v.active_site.empty() && v.active_site == v.deposing) {
    out.error = "field \"deposing\" must differ from \"activeSite\"";
    return out;
  }
  for (auto [name, dst] : {std::pair{"signature", &v.signature}, std::pair{"nonce", &out.nonce}}) {
    auto it = j.find(name);
    if (it == j.end() || !it->is_string() || it->get_ref<const std::string&>().size() > 256) {
      out.error = std::string("field \"") + name + "\" must be a string (at most 256 bytes)";
      return out;
    }
    *dst = it->get<std::string>();
  }
  out.view = v;
  return out;
}

}  // namespace br
