// reflector: list, watch from the list's resourceVersion, resume or relist, back off with jitter.
#include "io/kube/reflector.hpp"

#include "io/log/log.hpp"

namespace br::kube {

namespace {
std::string key_of(const json& obj) {
  const json md = obj.value("metadata", json::object());
  return md.value("namespace", std::string{}) + "/" + md.value("name", std::string{});
}
std::string rv_of(const json& obj) {
  return obj.value("metadata", json::object()).value("resourceVersion", std::string{});
}
}  // namespace

reflector::reflector(client& c, resource_ref r, std::string ns, reflector_options o)
    : c_(c), r_(std::move(r)), ns_(std::move(ns)), o_(std::move(o)) {}

void reflector::stop() {
  stop_ = true;
  std::lock_guard lock{m_};
  cv_.notify_all();
}

std::string reflector::resource_version() const {
  std::lock_guard lock{m_};
  return rv_;
}

void reflector::sleep_backoff(milliseconds& backoff) {
  std::uniform_real_distribution<double> u{0.0, 1.0};
  const auto wait = milliseconds{static_cast<long long>(backoff.count() * (1.0 + o_.jitter * u(rng_)))};
  std::unique_lock lock{m_};
  cv_.wait_for(lock, wait, [&] { return stop_.load(); });
  backoff = std::min(backoff * 2, o_.backoff_max);
}

bool reflector::relist(const std::function<void(const watch_event&)>& on_event) {
  ++stats_.lists;
  list_options lo;
  lo.label_selector = o_.label_selector;
  lo.field_selector = o_.field_selector;
  lo.limit = o_.page_size;
  auto res = c_.list_all(r_, ns_, lo);
  if (!res) {
    br::log::warn("kube list failed", {{"resource", r_.plural}, {"error", res.error().describe()}});
    return false;
  }
  std::map<std::string, json> fresh;
  for (auto& item : (*res)["items"]) {
    const std::string k = key_of(item);  // before the move: `=` evaluates its right side first
    fresh[k] = std::move(item);
  }
  // Deliver the difference against what the consumer has seen.
  for (auto& [k, obj] : fresh) {
    auto it = known_.find(k);
    if (it == known_.end()) {
      on_event({"ADDED", obj});
    } else if (rv_of(it->second) != rv_of(obj)) {
      on_event({"MODIFIED", obj});
    }
  }
  for (auto& [k, obj] : known_)
    if (!fresh.count(k)) on_event({"DELETED", obj});
  known_ = std::move(fresh);
  std::lock_guard lock{m_};
  rv_ = (*res)["metadata"].value("resourceVersion", std::string{});
  return true;
}

void reflector::run(const std::function<void(const watch_event&)>& on_event) {
  milliseconds backoff = o_.backoff_initial;
  bool need_list = true;
  while (!stop_) {
    if (need_list) {
      if (!relist(on_event)) {
        ++stats_.errors;
        sleep_backoff(backoff);
        continue;
      }
      need_list = false;
    }
    watch_options wo;
    wo.label_selector = o_.label_selector;
    wo.field_selector = o_.field_selector;
    wo.resource_version = resource_version();
    wo.allow_bookmarks = true;
    wo.server_timeout = o_.watch_timeout;
    ++stats_.watches;
    auto outcome = c_.watch(
        r_, ns_, wo,
        [&](const watch_event& e) {
          if (e.type != "BOOKMARK") {
            const std::string k = key_of(e.object);
            if (e.type == "DELETED") {
              known_.erase(k);
            } else {
              known_[k] = e.object;
            }
            on_event(e);
          }
          std::lock_guard lock{m_};
          rv_ = rv_of(e.object);  // resume point: after this event
          return true;
        },
        &stop_);
    switch (outcome.how) {
      case watch_outcome::end::stopped:
        return;
      case watch_outcome::end::gone:
        ++stats_.gone;
        br::log::info("kube watch expired, relisting", {{"resource", r_.plural}});
        need_list = true;
        break;
      case watch_outcome::end::closed:
        if (outcome.events > 0) backoff = o_.backoff_initial;
        break;  // the server ended the stream: resume at once
      case watch_outcome::end::error:
        ++stats_.errors;
        br::log::warn("kube watch failed", {{"resource", r_.plural}, {"error", outcome.error.describe()}});
        if (outcome.events > 0) backoff = o_.backoff_initial;
        sleep_backoff(backoff);
        break;
    }
  }
}

}  // namespace br::kube
