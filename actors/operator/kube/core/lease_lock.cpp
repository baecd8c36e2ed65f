// lease_lock: get, decide by observed time, create or conditional PUT of the Lease.
#include "actors/operator/kube/core/lease_lock.hpp"

#include <cmath>
#include <ctime>

namespace br::op {

namespace {

using std::chrono::milliseconds;
namespace kube = br::kube;

std::string micro_time_now() {
  const auto now = std::chrono::system_clock::now();
  const auto tt = std::chrono::system_clock::to_time_t(now);
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000;
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[64];
  std::snprintf(out, sizeof out, "%s.%06lldZ", buf, static_cast<long long>(us));
  return out;
}

milliseconds left(steady::time_point until) {
  auto d = std::chrono::duration_cast<milliseconds>(until - steady::now());
  return d.count() < 1 ? milliseconds{1} : d;
}

}  // namespace

lease_lock::lease_lock(std::shared_ptr<kube::client> c, election_config cfg)
    : c_(std::move(c)), cfg_(std::move(cfg)) {}

bool lease_lock::try_acquire_or_renew(milliseconds budget) {
  const auto until = steady::now() + budget;
  // leaseDurationSeconds is whole seconds: round up so the record never understates our lease.
  const int duration_s = static_cast<int>(std::ceil(cfg_.lease_duration.count() / 1000.0));
  auto current = c_->get(kube::resources::leases, cfg_.ns, cfg_.name, left(until));
  if (!current && current.error().not_found()) {
    const std::string now = micro_time_now();
    nlohmann::json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                            {"kind", "Lease"},
                            {"metadata", {{"name", cfg_.name}, {"namespace", cfg_.ns}}},
                            {"spec",
                             {{"holderIdentity", cfg_.identity},
                              {"leaseDurationSeconds", duration_s},
                              {"acquireTime", now},
                              {"renewTime", now},
                              {"leaseTransitions", 0}}}};
    const auto sent = steady::now();
    auto created = c_->create(kube::resources::leases, cfg_.ns, lease, left(until));
    if (!created) return false;
    observed_ = (*created)["spec"];
    observed_at_ = steady::now();
    last_sent_ = sent;
    return true;
  }
  if (!current) return false;
  nlohmann::json lease = *current;
  const nlohmann::json spec = lease.value("spec", nlohmann::json::object());
  if (spec != observed_) {
    observed_ = spec;
    observed_at_ = steady::now();
  }
  const std::string holder = spec.value("holderIdentity", std::string{});
  const int recorded_s = spec.value("leaseDurationSeconds", 0);
  const auto duration = recorded_s > 0 ? std::chrono::milliseconds{recorded_s * 1000} : cfg_.lease_duration;
  if (!holder.empty() && holder != cfg_.identity && observed_at_ + duration > steady::now()) {
    return false;  // held by someone else whose record changed within its duration
  }
  nlohmann::json next = spec;
  const std::string now = micro_time_now();
  if (holder != cfg_.identity) {
    next["acquireTime"] = now;
    next["leaseTransitions"] = spec.value("leaseTransitions", 0) + 1;
  }
  next["holderIdentity"] = cfg_.identity;
  next["leaseDurationSeconds"] = duration_s;
  next["renewTime"] = now;
  lease["spec"] = next;
  const auto sent = steady::now();
  auto written = c_->update(kube::resources::leases, lease, left(until));  // conditional on rv
  if (!written) return false;
  observed_ = (*written)["spec"];
  observed_at_ = steady::now();
  last_sent_ = sent;
  return true;
}

bool lease_lock::release(milliseconds budget) {
  const auto until = steady::now() + budget;
  auto current = c_->get(kube::resources::leases, cfg_.ns, cfg_.name, left(until));
  if (!current) return false;
  nlohmann::json lease = *current;
  if (lease["spec"].value("holderIdentity", std::string{}) != cfg_.identity) return false;
  const std::string now = micro_time_now();
  lease["spec"]["holderIdentity"] = "";
  lease["spec"]["leaseDurationSeconds"] = 1;
  lease["spec"]["renewTime"] = now;
  return c_->update(kube::resources::leases, lease, left(until)).ok();
}

}  // namespace br::op
