// boot_guard: a short chain of requests (fence -> /active-site -> cache -> maybe unfence), then quit.
#include "actors/sidecar/fencing/boot_guard.hpp"

#include <caf/all.hpp>

#include "actors/common/registry.hpp"
#include "actors/common/view_json.hpp"
#include "io/log/log.hpp"

namespace br::sidecar {

namespace {

using ms = std::chrono::milliseconds;

struct boot_ctx {
  monitor_options opts;
  std::shared_ptr<sidecar_handles> h;
  bool fenced = false;
  nlohmann::json fields() const {
    return {{"site", opts.site}, {"group", opts.group}, {"namespace", opts.pod_namespace}};
  }
};

void finish(ticking_actor::pointer self, const std::shared_ptr<boot_ctx>& c,
            const std::string& outcome) {
  auto f = c->fields();
  f["outcome"] = outcome;
  log::info("boot guard finished", f);
  if (auto m = c->h->monitor()) self->send(m, boot_done_atom::value);
  self->quit();
}

void maybe_unfence(ticking_actor::pointer self, std::shared_ptr<boot_ctx> c,
                   const sidecar_view& v) {
  auto f = c->fields();
  f["epoch"] = v.view.epoch;
  f["activeSite"] = v.view.active_site;
  if (!v.present || v.view.active_site != c->opts.site) {
    finish(self, c, v.view.active_site.empty() ? "no active site: staying fenced"
                                               : "confirmed standby: staying fenced");
    return;
  }
  if (!c->fenced) {
    finish(self, c, "operator names this site but the boot fence did not succeed: not unfencing");
    return;
  }
  auto m = c->h->mysql();
  if (!m) {
    finish(self, c, "no MySQL worker: staying fenced");
    return;
  }
  self->request(m, c->opts.fence_timeout + ms(2000), unfence_atom::value)
      .then(
          [=](const mysql_outcome& o) {
            if (o.ok) {
              log::info("boot guard: the operator names this site active; unfenced", f);
              finish(self, c, "unfenced");
            } else {
              auto g = f;
              g["error"] = o.error;
              log::error("boot guard: unfence failed", g);
              finish(self, c, "unfence failed");
            }
          },
          [=](caf::error& e) { finish(self, c, "unfence did not finish: " + caf::to_string(e)); });
}

void ask_operator(ticking_actor::pointer self, std::shared_ptr<boot_ctx> c) {
  auto w = c->h->operator_http();
  if (!w) {
    finish(self, c, "no operator HTTP worker: staying fenced");
    return;
  }
  http_call call;
  auto nonce = auth::new_nonce();
  call.url = operator_active_site_url(c->opts, nonce);
  call.timeout_ms = std::chrono::duration_cast<ms>(c->opts.request_timeout).count();
  self->request(w, c->opts.request_timeout + ms(1000), http_call_atom::value, call)
      .then(
          [=](const http_reply& r) {
            // Rule 3 unfences only on a fresh answer the operator signed for this request: a
            // replayed or forged view naming this site must not make it writable.
            auto a = read_operator_answer(authority_of(c->opts), nonce, r);
            auto& v = a.view;
            if (!v) {
              auto f = c->fields();
              f["status"] = r.status;
              f["error"] = r.error.empty() ? a.error : r.error;
              log::warn("boot guard: no usable answer from the operator's /active-site", f);
              finish(self, c, "no operator view: staying fenced");
              return;
            }
            auto cache = c->h->cache();
            if (!cache) {
              finish(self, c, "no view cache: staying fenced");
              return;
            }
            self->request(cache, ms(5000), offer_atom::value, view_offer{*v, view_source::boot})
                .then([=](const sidecar_view& cur) { maybe_unfence(self, c, cur); },
                      [=](caf::error& e) { finish(self, c, "view cache: " + caf::to_string(e)); });
          },
          [=](caf::error& e) { finish(self, c, "operator request: " + caf::to_string(e)); });
}

}  // namespace

ticking_actor::behavior_type boot_guard(ticking_actor::pointer self, monitor_options opts,
                                        std::shared_ptr<sidecar_handles> handles) {
  auto c = std::make_shared<boot_ctx>();
  c->opts = std::move(opts);
  c->h = std::move(handles);
  auto& o = c->opts;
  if (o.site.empty() || o.pod_namespace.empty() || o.group.empty() || o.operator_address.empty()) {
    finish(self, c, "skipped: site, namespace, group or operator address not configured");
    return {[](tick_atom) {}};  // finish() already quit
  }
  auto m = c->h->mysql();
  if (!m) {
    finish(self, c, "no MySQL worker");
    return {[](tick_atom) {}};  // finish() already quit
  }
  log::info("boot guard: fencing before asking the operator", c->fields());
  self->request(m, o.fence_timeout + ms(2000), self_fence_atom::value, std::string("boot"))
      .then(
          [=](const mysql_outcome& r) {
            c->fenced = r.ok;
            if (!r.ok) {
              auto f = c->fields();
              f["error"] = r.error;
              log::warn("boot guard: boot fence failed (mysqld boots fenced by configuration)", f);
            }
            ask_operator(self, c);
          },
          [=](caf::error& e) {
            auto f = c->fields();
            f["error"] = caf::to_string(e);
            log::warn("boot guard: boot fence did not finish", f);
            ask_operator(self, c);
          });
  return {[](tick_atom) {}};  // stays alive while its requests are pending
}

}  // namespace br::sidecar
