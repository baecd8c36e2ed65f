// Test helpers around the simulator: YAML fixtures as JSON, temp dirs, a connected client.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "io/kube/client.hpp"
#include "tests/support/kube_sim/simulator.hpp"

namespace br::kube_sim::test {

inline nlohmann::json yaml_to_json(const YAML::Node& n) {
  using nlohmann::json;
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      json o = json::object();
      for (const auto& kv : n) o[kv.first.as<std::string>()] = yaml_to_json(kv.second);
      return o;
    }
    case YAML::NodeType::Sequence: {
      json a = json::array();
      for (const auto& v : n) a.push_back(yaml_to_json(v));
      return a;
    }
    case YAML::NodeType::Scalar: {
      const std::string s = n.Scalar();
      if (n.Tag() == "!") return s;  // quoted: always a string
      if (s == "true") return true;
      if (s == "false") return false;
      if (s == "null" || s == "~") return nullptr;
      char* end = nullptr;
      long long i = std::strtoll(s.c_str(), &end, 10);
      if (!s.empty() && *end == '\0') return i;
      return s;
    }
    default:
      return nullptr;
  }
}

/// The external-dns DNSEndpoint CRD (schema: preserve unknown fields), as a test cluster needs it.
inline nlohmann::json dns_endpoint_crd() {
  using nlohmann::json;
  return {{"apiVersion", "apiextensions.k8s.io/v1"},
          {"kind", "CustomResourceDefinition"},
          {"metadata", {{"name", "dnsendpoints.externaldns.k8s.io"}}},
          {"spec",
           {{"group", "externaldns.k8s.io"},
            {"scope", "Namespaced"},
            {"names",
             {{"kind", "DNSEndpoint"}, {"plural", "dnsendpoints"}, {"singular", "dnsendpoint"},
              {"listKind", "DNSEndpointList"}}},
            {"versions",
             json::array({{{"name", "v1alpha1"},
                           {"served", true},
                           {"storage", true},
                           {"subresources", {{"status", json::object()}}},
                           {"schema",
                            {{"openAPIV3Schema",
                              {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}}}}}})}}}};
}

inline std::string fixture(const std::string& name) {
  const char* src = std::getenv("BR_SOURCE_DIR");
  return std::string{src ? src : "."} + "/tests/support/kube_sim/fixtures/" + name;
}

inline nlohmann::json load_fixture(const std::string& name) {
  return yaml_to_json(YAML::LoadFile(fixture(name)));
}

/// A fresh directory under the system temp dir, removed on destruction.
struct temp_dir {
  std::filesystem::path path;
  temp_dir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "kube-test-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

inline br::kube::config sim_config(const simulator& sim) {
  br::kube::config c;
  c.server = sim.url();
  c.token = br::kube::token_source::fixed("kube-sim-token");
  return c;
}

inline const br::kube::resource_ref mfg_ref{"shipstream.io", "v1alpha1", "mysqlfailovergroups", true};

}  // namespace br::kube_sim::test
