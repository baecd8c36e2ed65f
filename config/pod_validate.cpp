// Validation of the pod and Service shaping members: quantities, resource names, tolerations,
// Service templates and label keys. Every error carries its field path.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "config/pod_spec.hpp"

namespace br::config {
namespace {

bool alnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

bool digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_dns_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  std::size_t start = 0;
  while (true) {
    auto dot = s.find('.', start);
    auto label = s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (label.empty() || label.size() > 63 || !alnum(label.front()) || !alnum(label.back()))
      return false;
    for (char c : label)
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

std::string in_quotes(std::string_view s) {
  return "\"" + std::string{s} + "\"";
}

/// Standard compute resources, hugepages-<size>, or an extended resource domain/name outside
/// kubernetes.io (the API server's rules for container resources).
bool is_resource_name(std::string_view name) {
  if (name == "cpu" || name == "memory" || name == "ephemeral-storage") return true;
  if (name.starts_with("hugepages-")) return parse_quantity(name.substr(10)).has_value();
  return false;
}

bool is_extended_resource(std::string_view name) {
  auto slash = name.find('/');
  if (slash == std::string_view::npos || name.find('/', slash + 1) != std::string_view::npos)
    return false;
  auto domain = name.substr(0, slash);
  if (domain == "kubernetes.io" || domain.ends_with(".kubernetes.io") ||
      name.starts_with("requests."))
    return false;
  return is_qualified_name(name);
}

}  // namespace

std::optional<long double> parse_quantity(std::string_view s) {
  std::size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  std::size_t int_start = i;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  std::string_view whole = s.substr(int_start, i - int_start), frac;
  if (i < s.size() && s[i] == '.') {
    std::size_t f = ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    frac = s.substr(f, i - f);
  }
  if (whole.empty() && frac.empty()) return std::nullopt;
  long double value = 0;
  for (char c : whole) value = value * 10 + (c - '0');
  long double scale = 0.1L;
  for (char c : frac) {
    value += (c - '0') * scale;
    scale /= 10;
  }
  std::string_view suffix = s.substr(i);
  long double mult = 1;
  if (suffix.empty()) {
  } else if (suffix == "Ki") {
    mult = 1024.0L;
  } else if (suffix == "Mi") {
    mult = std::pow(1024.0L, 2);
  } else if (suffix == "Gi") {
    mult = std::pow(1024.0L, 3);
  } else if (suffix == "Ti") {
    mult = std::pow(1024.0L, 4);
  } else if (suffix == "Pi") {
    mult = std::pow(1024.0L, 5);
  } else if (suffix == "Ei") {
    mult = std::pow(1024.0L, 6);
  } else if (suffix == "n") {
    mult = 1e-9L;
  } else if (suffix == "u") {
    mult = 1e-6L;
  } else if (suffix == "m") {
    mult = 1e-3L;
  } else if (suffix == "k") {
    mult = 1e3L;
  } else if (suffix == "M") {
    mult = 1e6L;
  } else if (suffix == "G") {
    mult = 1e9L;
  } else if (suffix == "T") {
    mult = 1e12L;
  } else if (suffix == "P") {
    mult = 1e15L;
  } else if (suffix == "E") {
    mult = 1e18L;
  } else if (suffix.front() == 'e' || suffix.front() == 'E') {
    auto exp = suffix.substr(1);
    bool neg_exp = false;
    if (!exp.empty() && (exp.front() == '+' || exp.front() == '-')) {
      neg_exp = exp.front() == '-';
      exp.remove_prefix(1);
    }
    if (!digits(exp) || exp.size() > 3) return std::nullopt;
    int e = std::stoi(std::string{exp});
    mult = std::pow(10.0L, neg_exp ? -e : e);
  } else {
    return std::nullopt;
  }
  value *= mult;
  return negative ? -value : value;
}

void validate_resources(const resource_requirements& r, const std::string& path,
                        field_errors& errs) {
  auto check = [&](const std::map<std::string, std::string>& m, const char* kind) {
    std::map<std::string, long double> out;
    for (const auto& [name, text] : m) {
      std::string p = path + "." + kind + "[" + name + "]";
      bool extended = !is_resource_name(name);
      if (extended && !is_extended_resource(name)) {
        errs.push_back({p, "unknown resource " + in_quotes(name) +
                               ": use cpu, memory, ephemeral-storage, hugepages-<size> or an "
                               "extended resource named <domain>/<name>"});
        continue;
      }
      auto q = parse_quantity(text);
      if (!q) {
        errs.push_back({p, "invalid quantity " + in_quotes(text) +
                               ": expected a number with an optional suffix (m, k, M, G, Ki, Mi, "
                               "Gi, ..., or an exponent like 1e3)"});
        continue;
      }
      if (*q < 0) {
        errs.push_back({p, "must not be negative, got " + in_quotes(text)});
        continue;
      }
      if (extended && std::floor(*q) != *q) {
        errs.push_back({p, "extended resources take whole numbers, got " + in_quotes(text)});
        continue;
      }
      out[name] = *q;
    }
    return out;
  };
  auto requests = check(r.requests, "requests");
  auto limits = check(r.limits, "limits");
  for (const auto& [name, req] : requests)
    if (auto l = limits.find(name); l != limits.end() && req > l->second)
      errs.push_back({path + ".requests[" + name + "]",
                      "request " + in_quotes(r.requests.at(name)) + " is greater than the limit " +
                          in_quotes(r.limits.at(name))});
}

void validate_toleration(const toleration_spec& t, const std::string& path, field_errors& errs) {
  std::string op = t.op.empty() ? "Equal" : t.op;
  if (op != "Equal" && op != "Exists")
    errs.push_back({path + ".operator",
                    "unsupported value " + in_quotes(t.op) + ": supported values: \"Equal\", \"Exists\""});
  if (op == "Exists" && !t.value.empty())
    errs.push_back({path + ".value", "must be empty when operator is \"Exists\""});
  if (t.key.empty() && op != "Exists")
    errs.push_back({path + ".key", "required unless operator is \"Exists\""});
  if (!t.key.empty() && !is_qualified_name(t.key))
    errs.push_back({path + ".key", "invalid key " + in_quotes(t.key)});
  if (!t.effect.empty() && t.effect != "NoSchedule" && t.effect != "PreferNoSchedule" &&
      t.effect != "NoExecute")
    errs.push_back({path + ".effect", "unsupported value " + in_quotes(t.effect) +
                                          ": supported values: \"NoSchedule\", "
                                          "\"PreferNoSchedule\", \"NoExecute\""});
  if (t.toleration_seconds && t.effect != "NoExecute")
    errs.push_back({path + ".tolerationSeconds", "only allowed with effect \"NoExecute\""});
}

void validate_service_template(const service_template_spec& s, const std::string& path,
                               const std::vector<std::int32_t>& reserved_ports,
                               field_errors& errs) {
  for (const auto& [k, v] : s.labels) {
    std::string p = path + ".metadata.labels[" + k + "]";
    if (!is_qualified_name(k))
      errs.push_back({p, "invalid label key " + in_quotes(k)});
    else if (is_operator_key(k))
      errs.push_back({p, "reserved: the operator sets this label; remove it"});
    else if (!is_label_value(v))
      errs.push_back({p, "invalid label value " + in_quotes(v)});
  }
  for (const auto& [k, v] : s.annotations) {
    std::string p = path + ".metadata.annotations[" + k + "]";
    if (!is_qualified_name(k))
      errs.push_back({p, "invalid annotation key " + in_quotes(k)});
    else if (is_operator_key(k))
      errs.push_back({p, "reserved: the operator sets this annotation; remove it"});
  }
  bool external = s.type == "LoadBalancer" || s.type == "NodePort";
  if (s.type != "ClusterIP" && !external)
    errs.push_back({path + ".spec.type", "unsupported value " + in_quotes(s.type) +
                                             ": supported values: \"ClusterIP\", "
                                             "\"LoadBalancer\", \"NodePort\""});
  if (!s.external_traffic_policy.empty()) {
    if (!external)
      errs.push_back({path + ".spec.externalTrafficPolicy",
                      "only allowed for type LoadBalancer or NodePort"});
    else if (s.external_traffic_policy != "Cluster" && s.external_traffic_policy != "Local")
      errs.push_back({path + ".spec.externalTrafficPolicy",
                      "unsupported value " + in_quotes(s.external_traffic_policy) +
                          ": supported values: \"Cluster\", \"Local\""});
  }
  std::set<std::string> names;
  std::set<std::int32_t> numbers;
  for (std::size_t i = 0; i < s.ports.size(); ++i) {
    const auto& port = s.ports[i];
    std::string p = path + ".spec.ports[" + std::to_string(i) + "]";
    if (port.name.empty())
      errs.push_back({p + ".name", "required"});
    else if (port.name == "mysql" || port.name == "sidecar" || port.name == "health")
      errs.push_back({p + ".name", "reserved: " + in_quotes(port.name) + " is an operator port"});
    else if (!names.insert(port.name).second)
      errs.push_back({p + ".name", "duplicate port name " + in_quotes(port.name)});
    if (port.port < 1 || port.port > 65535)
      errs.push_back({p + ".port", "must be between 1 and 65535, got " + std::to_string(port.port)});
    else if (std::find(reserved_ports.begin(), reserved_ports.end(), port.port) !=
             reserved_ports.end())
      errs.push_back({p + ".port", "collides with the operator's port " +
                                       std::to_string(port.port) + " of this Service"});
    else if (!numbers.insert(port.port).second)
      errs.push_back({p + ".port", "duplicate port " + std::to_string(port.port)});
    if (port.target_port && (*port.target_port < 1 || *port.target_port > 65535))
      errs.push_back({p + ".targetPort",
                      "must be between 1 and 65535, got " + std::to_string(*port.target_port)});
    if (port.protocol != "TCP" && port.protocol != "UDP" && port.protocol != "SCTP")
      errs.push_back({p + ".protocol", "unsupported value " + in_quotes(port.protocol) +
                                           ": supported values: \"TCP\", \"UDP\", \"SCTP\""});
    if (port.node_port) {
      if (!external)
        errs.push_back({p + ".nodePort", "only allowed for type LoadBalancer or NodePort"});
      else if (*port.node_port < 1 || *port.node_port > 65535)
        errs.push_back({p + ".nodePort", "must be between 1 and 65535, got " +
                                             std::to_string(*port.node_port)});
    }
  }
}

bool is_qualified_name(std::string_view key) {
  auto slash = key.find('/');
  std::string_view name = key;
  if (slash != std::string_view::npos) {
    if (!is_dns_subdomain(key.substr(0, slash))) return false;
    name = key.substr(slash + 1);
  }
  if (name.empty() || name.size() > 63 || !alnum(name.front()) || !alnum(name.back()))
    return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; });
}

bool is_label_value(std::string_view value) {
  if (value.empty()) return true;
  if (value.size() > 63 || !alnum(value.front()) || !alnum(value.back())) return false;
  return std::all_of(value.begin(), value.end(),
                     [](char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; });
}

bool is_operator_key(std::string_view key) {
  return key == "app.kubernetes.io/name" || key == "app.kubernetes.io/instance" ||
         key == "app.kubernetes.io/managed-by" || key.starts_with("shipstream.io/") ||
         key.starts_with("bloodraven.shipstream.io/");
}

}  // namespace br::config
