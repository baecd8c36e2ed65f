// Store helpers: RFC 3339 times, name suffixes, Status errors, continue tokens, CRD status.
#include "tests/support/kube_sim/store_util.hpp"

#include <chrono>
#include <ctime>
#include <random>

namespace br::kube_sim {

std::string now_rfc3339() {
  const auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string random_suffix() {
  static thread_local std::mt19937 rng{std::random_device{}()};
  static constexpr char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string s;
  for (int i = 0; i < 5; ++i) s.push_back(alphabet[rng() % (sizeof alphabet - 1)]);
  return s;
}

api_result not_found(const resource_type& t, const std::string& name) {
  return status_error(404, "NotFound", t.qualified() + " \"" + name + "\" not found",
                      {{"name", name}, {"group", t.group}, {"kind", t.plural}});
}

api_result conflict(const resource_type& t, const std::string& name) {
  return status_error(409, "Conflict",
                      "Operation cannot be fulfilled on " + t.qualified() + " \"" + name +
                          "\": the object has been modified; please apply your changes to the "
                          "latest version and try again",
                      {{"name", name}, {"group", t.group}, {"kind", t.plural}});
}

api_result invalid(const resource_type& t, const std::string& name, const std::vector<field_error>& errs) {
  json causes = json::array();
  std::string joined;
  for (const auto& e : errs) {
    causes.push_back({{"reason", e.reason}, {"message", e.message}, {"field", e.field}});
    joined += (joined.empty() ? "" : ", ") + e.field + ": " + e.message;
  }
  const std::string gk = t.group.empty() ? t.kind : t.kind + "." + t.group;
  return status_error(422, "Invalid", gk + " \"" + name + "\" is invalid: " + joined,
                      {{"name", name}, {"group", t.group}, {"kind", t.kind}, {"causes", causes}});
}

namespace {
constexpr char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
}

std::string encode_continue(const std::string& last_key, std::uint64_t rv) {
  const std::string raw = json{{"start", last_key}, {"rv", rv}}.dump();
  std::string out;
  unsigned val = 0;
  int bits = -6;
  for (unsigned char c : raw) {
    val = (val << 8) + c;
    bits += 8;
    while (bits >= 0) {
      out.push_back(b64[(val >> bits) & 0x3f]);
      bits -= 6;
    }
  }
  if (bits > -6) out.push_back(b64[((val << 8) >> (bits + 8)) & 0x3f]);
  return out;
}

std::optional<std::pair<std::string, std::uint64_t>> decode_continue(const std::string& token) {
  std::string raw;
  unsigned val = 0;
  int bits = -8;
  for (char c : token) {
    const char* pos = std::char_traits<char>::find(b64, 64, c);
    if (!pos) return std::nullopt;
    val = (val << 6) + static_cast<unsigned>(pos - b64);
    bits += 6;
    if (bits >= 0) {
      raw.push_back(static_cast<char>((val >> bits) & 0xff));
      bits -= 8;
    }
  }
  try {
    auto j = json::parse(raw);
    return std::make_pair(j.at("start").get<std::string>(), j.at("rv").get<std::uint64_t>());
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

json crd_status(const json& crd) {
  const std::string now = now_rfc3339();
  json names = crd.value("spec", json::object()).value("names", json::object());
  return {{"acceptedNames", names},
          {"storedVersions", json::array({[&] {
             for (const auto& v : crd["spec"].value("versions", json::array()))
               if (v.value("storage", false)) return v.value("name", std::string{});
             return std::string{};
           }()})},
          {"conditions",
           json::array({{{"type", "NamesAccepted"}, {"status", "True"}, {"reason", "NoConflicts"},
                         {"message", "no conflicts found"}, {"lastTransitionTime", now}},
                        {{"type", "Established"}, {"status", "True"}, {"reason", "InitialNamesAccepted"},
                         {"message", "the initial names have been accepted"}, {"lastTransitionTime", now}}})}};
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : path + "/") {
    if (c == '/') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  return out;
}

}  // namespace br::kube_sim
