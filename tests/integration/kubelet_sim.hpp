// A SIMULATION of the kubelet and the Deployment and StatefulSet controllers, for tests: nothing
// runs pods here. For every Deployment whose newest generation it has not observed, it "restarts"
// the site: the site's pods are deleted, one pod is created from the Deployment's pod template,
// and the Deployment's status reports the rollout done (observed, updated, ready). MySQL itself is
// not restarted: the sandbox servers stand for the pods' mysqld. A StatefulSet (one replica, as
// the operator renders them) gets its pod <name>-0 the same way (recreated from the template on
// a new generation), and a pod whose StatefulSet is gone is deleted (the garbage collector).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/kube/client.hpp"

namespace br::test {

class kubelet_sim {
 public:
  kubelet_sim(std::shared_ptr<kube::client> c, std::string ns) : c_(std::move(c)), ns_(std::move(ns)) {}
  ~kubelet_sim() { stop(); }
  kubelet_sim(const kubelet_sim&) = delete;
  kubelet_sim& operator=(const kubelet_sim&) = delete;

  void start() {
    thread_ = std::thread([this] {
      while (!stop_.load()) {
        tick();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    });
  }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  /// Called on the kubelet's thread before a workload's pods are replaced, with the workload and
  /// its new generation: a test restarts what the pod stands for (a sandbox mysqld). Set it
  /// before start().
  void on_restart(std::function<void(const nlohmann::json&, int64_t)> f) { on_restart_ = std::move(f); }
  /// (Deployment name, generation) per simulated restart, in order.
  std::vector<std::pair<std::string, int64_t>> restarts() const {
    std::lock_guard<std::mutex> lk(mx_);
    return restarts_;
  }

 private:
  using json = nlohmann::json;

  void tick() {
    kube::list_options lo;
    lo.label_selector = "app.kubernetes.io/managed-by=bloodraven";
    for (const auto* kind : {&kube::resources::deployments, &kube::resources::statefulsets}) {
      auto items = c_->list(*kind, ns_, lo, std::chrono::seconds(3));
      if (!items) return;
      std::vector<std::string> names;
      for (const auto& d : (*items)["items"]) {
        const auto& md = d["metadata"];
        names.push_back(md.value("name", ""));
        const int64_t gen = md.value("generation", int64_t{1});
        if (d.value("status", json::object()).value("observedGeneration", int64_t{0}) >= gen) continue;
        restart(*kind, d, gen);
      }
      if (kind == &kube::resources::statefulsets) collect_orphans(names);
    }
  }

  /// Pods of StatefulSets that no longer exist are deleted.
  void collect_orphans(const std::vector<std::string>& sets) {
    kube::list_options lo;
    lo.label_selector = "app.kubernetes.io/managed-by=bloodraven,app.kubernetes.io/name=dragonfly";
    auto pods = c_->list(kube::resources::pods, ns_, lo, std::chrono::seconds(3));
    if (!pods) return;
    for (const auto& p : (*pods)["items"]) {
      const auto name = p["metadata"].value("name", "");
      bool owned = false;
      for (const auto& s : sets) owned = owned || name == s + "-0";
      if (!owned) (void)c_->remove(kube::resources::pods, ns_, name, {}, std::chrono::seconds(3));
    }
  }

  void restart(const kube::resource_ref& kind, const json& d, int64_t gen) {
    const bool sts = &kind == &kube::resources::statefulsets;
    const auto name = d["metadata"].value("name", "");
    if (on_restart_) on_restart_(d, gen);
    const json tmpl = d["spec"].value("template", json::object());
    const json labels = tmpl.value("metadata", json::object()).value("labels", json::object());
    std::string selector;
    const json match = d["spec"]["selector"].value("matchLabels", json::object());
    for (const auto& [k, v] : match.items())
      selector += (selector.empty() ? "" : ",") + k + "=" + v.get<std::string>();
    kube::list_options lo;
    lo.label_selector = selector;
    if (auto pods = c_->list(kube::resources::pods, ns_, lo, std::chrono::seconds(3)))
      for (const auto& p : (*pods)["items"])
        (void)c_->remove(kube::resources::pods, ns_, p["metadata"].value("name", ""), {},
                         std::chrono::seconds(3));
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata",
                 {{"name", sts ? name + "-0" : name + "-g" + std::to_string(gen)}, {"namespace", ns_}, {"labels", labels}}},
                {"spec", tmpl.value("spec", json::object())}};
    auto made = c_->create(kube::resources::pods, ns_, pod, std::chrono::seconds(3));
    if (!made && !made.error().already_exists()) return;  // retried on the next tick
    auto fresh = c_->get(kind, ns_, name, std::chrono::seconds(3));
    if (!fresh) return;
    json obj = *fresh;
    if (obj["metadata"].value("generation", int64_t{1}) != gen) return;  // changed meanwhile
    obj["status"] = {{"observedGeneration", gen},
                     {"replicas", 1},
                     {"updatedReplicas", 1},
                     {"readyReplicas", 1},
                     {"availableReplicas", 1}};
    if (c_->update_status(kind, obj, std::chrono::seconds(3))) {
      std::lock_guard<std::mutex> lk(mx_);
      restarts_.emplace_back(name, gen);
    }
  }

  std::shared_ptr<kube::client> c_;
  std::string ns_;
  std::function<void(const nlohmann::json&, int64_t)> on_restart_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  mutable std::mutex mx_;
  std::vector<std::pair<std::string, int64_t>> restarts_;
};

}  // namespace br::test
