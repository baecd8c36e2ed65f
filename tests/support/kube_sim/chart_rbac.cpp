// The chart's RBAC templates rendered with the default values (see chart_rbac.hpp).
#include "tests/support/kube_sim/chart_rbac.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace br::kube_sim {

using nlohmann::json;

namespace {

json to_json(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      json o = json::object();
      for (const auto& kv : n) o[kv.first.as<std::string>()] = to_json(kv.second);
      return o;
    }
    case YAML::NodeType::Sequence: {
      json a = json::array();
      for (const auto& v : n) a.push_back(to_json(v));
      return a;
    }
    case YAML::NodeType::Scalar:
      return n.Scalar();  // RBAC objects hold strings only
    default:
      return nullptr;
  }
}

bool is_rbac_kind(const std::string& text) {
  static const std::regex kind{R"((^|\n)kind: (Cluster)?Role(Binding)?[ \t]*(\n|$))"};
  return std::regex_search(text, kind);
}

/// One line with its template actions rendered (`item`: the value of `{{ . }}` inside the
/// groupNamespaces range); "" with skip=true for a whole-line action. Throws on any other action.
std::string render_line(const std::string& file, std::string line, const chart_release& rel,
                        const std::string& item, bool& skip) {
  skip = false;
  auto first = line.find_first_not_of(" \t");
  auto last = line.find_last_not_of(" \t");
  const std::string trimmed = first == std::string::npos ? "" : line.substr(first, last - first + 1);
  // Whole-line actions: comments, the labels include, the leaderElection guard and its end.
  static const std::regex whole{
      R"re(\{\{-? *(/\*.*\*/|include "bloodraven\.labels" (\.|\$) \| nindent \d+|if \.Values\.leaderElection\.enabled|end) *-?\}\})re"};
  if (std::regex_match(trimmed, whole)) {
    skip = true;
    return "";
  }
  const std::string fullname = rel.service_account();
  line = std::regex_replace(line, std::regex{R"re(\{\{ include "bloodraven\.(fullname|serviceAccountName)" (\.|\$) \}\})re"},
                            fullname);
  line = std::regex_replace(line, std::regex{R"(\{\{ \$?\.Release\.Namespace \}\})"}, rel.ns);
  if (!item.empty()) line = std::regex_replace(line, std::regex{R"(\{\{ \. \}\})"}, item);
  if (line.find("{{") != std::string::npos)
    throw std::runtime_error(file + ": template action not rendered by chart_rbac: " + trimmed);
  return line;
}

/// The template's text with its template actions rendered for `rel`; throws on any other. The
/// one loop is `range` over groupNamespaces (default: the release namespace), its body repeated
/// once per namespace.
std::string render(const std::string& file, const std::string& text, const chart_release& rel) {
  static const std::string range_open =
      "{{- range (.Values.groupNamespaces | default (list .Release.Namespace)) }}";
  std::istringstream in{text};
  std::ostringstream out;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  auto trim = [](const std::string& l) {
    auto f = l.find_first_not_of(" \t");
    auto e = l.find_last_not_of(" \t");
    return f == std::string::npos ? std::string{} : l.substr(f, e - f + 1);
  };
  // role-webhook-ca.yaml's block: rendered only when the webhook's certificate is the operator's.
  static const std::string operator_ca_guard =
      R"({{- if and .Values.webhook.enabled (eq (include "bloodraven.webhookCertificate" .) "operator") }})";
  bool skip = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (trim(lines[i]) == operator_ca_guard) {
      if (rel.webhook_certificate != "operator")
        while (i < lines.size() && trim(lines[i]) != "{{- end }}") ++i;
      continue;
    }
    if (trim(lines[i]) != range_open) {
      auto l = render_line(file, lines[i], rel, "", skip);
      if (!skip) out << l << "\n";
      continue;
    }
    size_t end = i + 1;
    while (end < lines.size() && trim(lines[end]) != "{{- end }}") ++end;
    if (end == lines.size()) throw std::runtime_error(file + ": range without end");
    auto items = rel.group_namespaces.empty() ? std::vector<std::string>{rel.ns} : rel.group_namespaces;
    for (const auto& ns : items)
      for (size_t k = i + 1; k < end; ++k) {
        auto l = render_line(file, lines[k], rel, ns, skip);
        if (!skip) out << l << "\n";
      }
    i = end;
  }
  return out.str();
}

}  // namespace

std::string chart_release::service_account() const {
  // bloodraven.fullname: the release name when it contains the chart name, else "<name>-bloodraven".
  return name.find("bloodraven") != std::string::npos ? name : name + "-bloodraven";
}

std::vector<json> chart_rbac_objects(const std::string& chart_dir, const chart_release& rel) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(chart_dir + "/templates"))
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<json> out;
  for (const auto& f : files) {
    std::ifstream in{f};
    std::stringstream buf;
    buf << in.rdbuf();
    if (!is_rbac_kind(buf.str())) continue;
    for (const auto& doc : YAML::LoadAll(render(f.string(), buf.str(), rel))) {
      auto o = to_json(doc);
      if (o.is_object()) out.push_back(std::move(o));
    }
  }
  if (out.empty()) throw std::runtime_error(chart_dir + ": no RBAC objects in templates/");
  return out;
}

rbac_policy chart_operator_policy(const std::string& chart_dir, const chart_release& rel) {
  return policy_for_service_account(chart_rbac_objects(chart_dir, rel), rel.ns, rel.service_account());
}

rbac_enforcement chart_operator_rbac(const std::string& chart_dir, std::vector<std::string> identities,
                                     const chart_release& rel) {
  return {std::move(identities), service_account_user(rel.ns, rel.service_account()),
          chart_operator_policy(chart_dir, rel)};
}

}  // namespace br::kube_sim
