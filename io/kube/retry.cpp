// update_with_retry: bounded read-mutate-write loop on resourceVersion conflicts.
#include "io/kube/retry.hpp"

#include <thread>

namespace br::kube {

result<json> update_with_retry(const std::function<result<json>()>& get,
                               const std::function<bool(json&)>& mutate,
                               const std::function<result<json>(const json&)>& write,
                               const retry_options& o) {
  milliseconds backoff = o.backoff;
  api_error last{409, "Conflict", "no attempt made"};
  for (int attempt = 1; attempt <= o.attempts; ++attempt) {
    auto current = get();
    if (!current) return current;
    json obj = std::move(*current);
    if (!mutate(obj)) return obj;
    auto written = write(obj);
    if (o.attempts_used) *o.attempts_used = attempt;
    if (written || !written.error().conflict()) return written;
    last = written.error();
    if (attempt < o.attempts) {
      std::this_thread::sleep_for(backoff);
      backoff *= 2;
    }
  }
  return last;
}

result<json> update_with_retry(client& c, const resource_ref& r, const std::string& ns,
                               const std::string& name, const std::function<bool(json&)>& mutate,
                               bool status, const retry_options& o) {
  return update_with_retry([&] { return c.get(r, ns, name); }, mutate,
                           [&](const json& obj) { return status ? c.update_status(r, obj) : c.update(r, obj); },
                           o);
}

}  // namespace br::kube
