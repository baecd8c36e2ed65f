// Process kubelet (tests): pure pieces (env, selectors, projected files, Service rules, hosts).
#include "tests/support/process_kubelet/pod_config.hpp"

#include <algorithm>
#include <sys/stat.h>
#include <unistd.h>

#include "io/codec/base64.hpp"

namespace br::test::kubelet {
namespace {

/// Data of a Secret (decoded) or ConfigMap (data + binaryData decoded); nullopt when missing.
std::optional<std::map<std::string, std::string>> object_data(const pod_refs& refs, bool secret,
                                                              const std::string& name) {
  const auto& m = secret ? refs.secrets : refs.configmaps;
  auto it = m.find(name);
  if (it == m.end()) return std::nullopt;
  std::map<std::string, std::string> out;
  const json& obj = it->second;
  const json data = obj.value("data", json::object());
  const json string_data = obj.value("stringData", json::object());
  const json binary_data = obj.value("binaryData", json::object());
  for (const auto& [k, v] : data.items()) {
    if (!v.is_string()) continue;
    if (secret) {
      if (auto d = br::base64_decode(v.get<std::string>())) out[k] = *d;
    } else {
      out[k] = v.get<std::string>();
    }
  }
  if (secret)
    for (const auto& [k, v] : string_data.items())
      if (v.is_string()) out[k] = v.get<std::string>();
  if (!secret)
    for (const auto& [k, v] : binary_data.items())
      if (v.is_string())
        if (auto d = br::base64_decode(v.get<std::string>())) out[k] = *d;
  return out;
}

std::string field_value(const std::string& path, const json& pod, const std::string& pod_ip,
                        bool& ok) {
  ok = true;
  const json md = pod.value("metadata", json::object());
  if (path == "metadata.name") return md.value("name", "");
  if (path == "metadata.namespace") return md.value("namespace", "");
  if (path == "metadata.uid") return md.value("uid", "");
  if (path == "status.podIP") return pod_ip;
  if (path == "spec.nodeName") return pod.value("spec", json::object()).value("nodeName", "");
  if (path == "spec.serviceAccountName")
    return pod.value("spec", json::object()).value("serviceAccountName", "default");
  ok = false;
  return {};
}

}  // namespace

env_result resolve_env(const json& container, const json& pod, const std::string& pod_ip,
                       const pod_refs& refs) {
  env_result r;
  std::map<std::string, size_t> index;
  auto set = [&](const std::string& k, const std::string& v) {
    auto it = index.find(k);
    if (it != index.end()) {
      r.env[it->second].second = v;
    } else {
      index[k] = r.env.size();
      r.env.emplace_back(k, v);
    }
  };
  const std::string cname = container.value("name", "");
  for (const auto& from : container.value("envFrom", json::array())) {
    const std::string prefix = from.value("prefix", "");
    for (bool secret : {true, false}) {
      const char* key = secret ? "secretRef" : "configMapRef";
      if (!from.contains(key)) continue;
      const auto& ref = from[key];
      const auto name = ref.value("name", "");
      auto data = object_data(refs, secret, name);
      if (!data) {
        if (ref.value("optional", false)) continue;
        r.error = std::string(secret ? "secret" : "configmap") + " \"" + name + "\" not found";
        return r;
      }
      for (const auto& [k, v] : *data) set(prefix + k, v);
    }
  }
  for (const auto& e : container.value("env", json::array())) {
    const auto name = e.value("name", "");
    if (e.contains("value")) {
      set(name, e["value"].is_string() ? e["value"].get<std::string>() : e["value"].dump());
      continue;
    }
    if (!e.contains("valueFrom")) {
      set(name, "");
      continue;
    }
    const json& vf = e["valueFrom"];
    bool handled = false;
    for (bool secret : {true, false}) {
      const char* key = secret ? "secretKeyRef" : "configMapKeyRef";
      if (!vf.contains(key)) continue;
      handled = true;
      const auto& ref = vf[key];
      const auto obj = ref.value("name", "");
      const auto k = ref.value("key", "");
      const bool optional = ref.value("optional", false);
      auto data = object_data(refs, secret, obj);
      if (!data || !data->contains(k)) {
        if (optional) break;
        r.error = !data ? std::string(secret ? "secret" : "configmap") + " \"" + obj + "\" not found"
                        : "couldn't find key " + k + " in " + (secret ? "Secret" : "ConfigMap") + " " +
                              pod.value("metadata", json::object()).value("namespace", "") + "/" + obj;
        return r;
      }
      set(name, data->at(k));
    }
    if (handled) continue;
    if (vf.contains("fieldRef")) {
      bool ok = false;
      const auto path = vf["fieldRef"].value("fieldPath", "");
      auto v = field_value(path, pod, pod_ip, ok);
      if (!ok) {
        r.error = "containers[" + cname + "].env[" + name + "].valueFrom.fieldRef.fieldPath: " + path +
                  " is not supported by the process kubelet";
        return r;
      }
      set(name, v);
      continue;
    }
    r.error = "containers[" + cname + "].env[" + name + "].valueFrom: " + vf.dump() +
              " is not supported by the process kubelet";
    return r;
  }
  return r;
}

bool selector_matches(const json& selector, const json& labels) {
  if (!selector.is_object() || selector.empty()) return false;
  for (const auto& [k, v] : selector.items()) {
    if (!labels.is_object() || !labels.contains(k) || labels[k] != v) return false;
  }
  return true;
}

volume_files project_volume(const json& volume, const pod_refs& refs) {
  volume_files r;
  const bool secret = volume.contains("secret");
  const json src = volume.value(secret ? "secret" : "configMap", json::object());
  const auto name = src.value(secret ? "secretName" : "name", "");
  const bool optional = src.value("optional", false);
  const int mode = src.value("defaultMode", 0644);
  auto data = object_data(refs, secret, name);
  if (!data) {
    if (!optional)
      r.error = std::string(secret ? "secret" : "configmap") + " \"" + name + "\" not found";
    return r;
  }
  if (src.contains("items")) {
    for (const auto& it : src["items"]) {
      const auto k = it.value("key", "");
      if (!data->contains(k)) {
        if (!optional) {
          r.error = "couldn't find key " + k + " in " + (secret ? "Secret " : "ConfigMap ") + name;
          return r;
        }
        continue;
      }
      r.files.push_back({it.value("path", k), data->at(k), it.value("mode", mode)});
    }
  } else {
    for (const auto& [k, v] : *data) r.files.push_back({k, v, mode});
  }
  return r;
}

volume_files project_projected(const json& volume, const json& pod, const pod_refs& refs) {
  volume_files r;
  const json projected = volume.value("projected", json::object());
  const int mode = projected.value("defaultMode", 0644);
  const json md = pod.value("metadata", json::object());
  for (const auto& src : projected.value("sources", json::array())) {
    if (src.contains("configMap") || src.contains("secret")) {
      const bool secret = src.contains("secret");
      json v = {{secret ? "secret" : "configMap", src[secret ? "secret" : "configMap"]}};
      v.begin().value()["defaultMode"] = mode;
      if (secret) v["secret"]["secretName"] = src["secret"].value("name", "");
      if (!secret && src["configMap"].value("name", "") == "kube-root-ca.crt")
        v["configMap"]["optional"] = true;
      auto files = project_volume(v, refs);
      if (!files.error.empty()) return {{}, files.error};
      r.files.insert(r.files.end(), files.files.begin(), files.files.end());
    } else if (src.contains("serviceAccountToken")) {
      const auto account = pod.value("spec", json::object()).value("serviceAccountName", "default");
      r.files.push_back({src["serviceAccountToken"].value("path", "token"),
                         "process-kubelet:" + md.value("namespace", "") + ":" + account, mode});
    } else if (src.contains("downwardAPI")) {
      for (const auto& it : src["downwardAPI"].value("items", json::array())) {
        bool ok = false;
        auto value = field_value(it.value("fieldRef", json::object()).value("fieldPath", ""), pod, "", ok);
        if (!ok) return {{}, "downwardAPI item " + it.value("path", "") + ": unsupported fieldRef"};
        r.files.push_back({it.value("path", ""), value, it.value("mode", mode)});
      }
    } else {
      return {{}, "projected source " + src.dump() + " is not run by the process kubelet"};
    }
  }
  return r;
}

std::map<int, std::vector<endpoint>> service_endpoints(const json& service,
                                                       const std::vector<json>& pods) {
  std::map<int, std::vector<endpoint>> out;
  const json spec = service.value("spec", json::object());
  const json selector = spec.value("selector", json::object());
  const bool not_ready_too = spec.value("publishNotReadyAddresses", false);
  std::vector<const json*> chosen;
  for (const auto& p : pods) {
    const json md = p.value("metadata", json::object());
    if (md.value("namespace", "") != service["metadata"].value("namespace", "")) continue;
    if (!selector_matches(selector, md.value("labels", json::object()))) continue;
    const json st = p.value("status", json::object());
    if (st.value("podIP", "").empty()) continue;
    bool ready = false;
    for (const auto& c : st.value("conditions", json::array()))
      if (c.value("type", "") == "Ready") ready = c.value("status", "") == "True";
    if (!ready && !not_ready_too) continue;
    chosen.push_back(&p);
  }
  std::sort(chosen.begin(), chosen.end(), [](const json* a, const json* b) {
    return (*a)["metadata"].value("name", "") < (*b)["metadata"].value("name", "");
  });
  for (const auto& port : spec.value("ports", json::array())) {
    const int p = port.value("port", 0);
    auto& list = out[p];
    const json target = port.contains("targetPort") ? port["targetPort"] : json(p);
    for (const json* pod : chosen) {
      int tp = 0;
      if (target.is_number_integer()) {
        tp = target.get<int>();
      } else if (target.is_string()) {
        for (const auto& c : (*pod)["spec"].value("containers", json::array()))
          for (const auto& cp : c.value("ports", json::array()))
            if (cp.value("name", "") == target.get<std::string>()) tp = cp.value("containerPort", 0);
      }
      if (tp > 0) list.push_back({(*pod)["status"].value("podIP", ""), tp});
    }
  }
  return out;
}

bool is_headless(const json& service) {
  return service.value("spec", json::object()).value("clusterIP", "") == "None";
}

std::string headless_address(const json& service, const std::vector<json>& pods) {
  for (const auto& [port, eps] : service_endpoints(service, pods))
    if (!eps.empty()) return eps.front().ip;
  return "";
}

std::string nat_rules_document(const std::string& chain, const std::vector<service_rule>& rules) {
  std::string d = "*nat\n:" + chain + " - [0:0]\n-F " + chain + "\n";
  for (const auto& r : rules) {
    if (r.target.ip.empty() || r.target.port <= 0) continue;
    d += "-A " + chain + " -d " + r.cluster_ip + "/32 -p tcp -m tcp --dport " + std::to_string(r.port) +
         " -j DNAT --to-destination " + r.target.ip + ":" + std::to_string(r.target.port) + "\n";
  }
  d += "COMMIT\n";
  return d;
}

std::string hosts_text(const std::map<std::string, std::string>& cluster_ip_by_ns_name) {
  std::string t = "# process kubelet: cluster DNS SIMULATION (Service names -> ClusterIPs)\n"
                  "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n";
  for (const auto& [key, ip] : cluster_ip_by_ns_name) {
    const auto slash = key.find('/');
    if (slash == std::string::npos) continue;
    const auto ns = key.substr(0, slash), name = key.substr(slash + 1);
    t += ip + "\t" + name + "." + ns + ".svc.cluster.local " + name + "." + ns + ".svc " + name +
         "." + ns + "\n";
  }
  return t;
}

std::string path_in_root(const std::string& root, const std::string& path) {
  std::vector<std::string> todo;  // components still to walk, in reverse order
  auto push_path = [&](const std::string& p) {
    std::vector<std::string> parts;
    size_t i = 0;
    while (i <= p.size()) {
      size_t j = p.find('/', i);
      if (j == std::string::npos) j = p.size();
      if (j > i) parts.push_back(p.substr(i, j - i));
      i = j + 1;
    }
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) todo.push_back(*it);
  };
  push_path(path);
  std::vector<std::string> done;
  int links = 0;
  while (!todo.empty()) {
    auto c = todo.back();
    todo.pop_back();
    if (c == ".") continue;
    if (c == "..") {
      if (!done.empty()) done.pop_back();
      continue;
    }
    std::string host = root;
    for (const auto& d : done) host += "/" + d;
    host += "/" + c;
    struct stat st{};
    if (::lstat(host.c_str(), &st) == 0 && S_ISLNK(st.st_mode) && links < 40) {
      ++links;
      char buf[4096];
      ssize_t n = ::readlink(host.c_str(), buf, sizeof buf - 1);
      if (n > 0) {
        std::string target(buf, static_cast<size_t>(n));
        if (!target.empty() && target[0] == '/') done.clear();
        push_path(target);
        continue;
      }
    }
    done.push_back(c);
  }
  std::string out = root;
  for (const auto& d : done) out += "/" + d;
  return out;
}

}  // namespace br::test::kubelet
