// fencing_monitor: rounds of view pulls and probes, then decide_fencing; fences through the worker.
#include "actors/sidecar/fencing/fencing_monitor.hpp"
#include "actors/sidecar/fencing/push_rule.hpp"

#include <caf/all.hpp>

#include <nlohmann/json.hpp>
#include <optional>

#include "actors/common/registry.hpp"
#include "actors/sidecar/common/sidecar_metrics.hpp"
#include "actors/common/view_json.hpp"
#include "io/codec/url.hpp"
#include "io/http/router.hpp"
#include "io/log/log.hpp"

namespace br::sidecar {

namespace {

using self_ptr = fencing_monitor_actor::stateful_pointer<monitor_state>;
using ms = std::chrono::milliseconds;

time_point from_ns(int64_t ns) { return time_point{std::chrono::nanoseconds{ns}}; }

int64_t to_ms(caf::timespan d) { return std::chrono::duration_cast<ms>(d).count(); }

http_call get_call(const std::string& url, caf::timespan timeout) {
  http_call c;
  c.url = url;
  c.timeout_ms = to_ms(timeout);
  return c;
}

/// CAF-side deadline of one HTTP request: the worker's own hard timeout plus a margin.
caf::timespan http_deadline(const monitor_options& o) { return o.request_timeout + ms(1000); }

nlohmann::json log_fields(const monitor_state& st) {
  return {{"site", st.opts.site},
          {"group", st.opts.group},
          {"namespace", st.opts.pod_namespace},
          {"epoch", st.view.present ? st.view.view.epoch : 0},
          {"activeSite", st.view.present ? st.view.view.active_site : ""}};
}

void finish_round(self_ptr self);
void decide(self_ptr self);
void start_round(self_ptr self, bool refresh);

void step_done(self_ptr self) {
  if (--self->state.pending > 0) return;
  auto& st = self->state;
  // Offer every pulled view to the cache (it applies the adoption rule and persists), then decide
  // on whatever it holds afterwards (a PUT /view may have raised it meanwhile).
  auto cache = st.h->cache();
  if (!cache) {
    decide(self);
    return;
  }
  auto offers = std::move(st.offers);
  st.offers.clear();
  auto remaining = std::make_shared<size_t>(offers.empty() ? 1 : offers.size());
  auto on_view = [=](const sidecar_view& v) {
    if (v.present) self->state.view = v;
    if (--*remaining == 0) decide(self);
  };
  auto on_err = [=](caf::error& e) {
    log::error("view cache did not answer", {{"error", caf::to_string(e)}});
    if (--*remaining == 0) decide(self);
  };
  if (offers.empty()) {  // nothing pulled: still pick up pushes that arrived meanwhile
    self->request(cache, ms(5000), view_atom::value).then(on_view, on_err);
    return;
  }
  for (auto& o : offers) self->request(cache, ms(5000), offer_atom::value, o).then(on_view, on_err);
}

/// The operator's signed view for this round. Only a verified answer to this request's nonce
/// counts as operator contact (rule 2): not a bare 200 (a standby or deposed operator process, or
/// an impostor, cannot renew a lease), and not a replayed answer.
void pull_operator(self_ptr self) {
  auto& st = self->state;
  if (st.opts.operator_address.empty() || st.opts.pod_namespace.empty() || st.opts.group.empty())
    return;
  auto w = st.h->operator_http();
  if (!w || st.operator_inflight) return;
  st.operator_inflight = true;
  ++st.pending;
  auto nonce = auth::new_nonce();
  self->request(w, http_deadline(st.opts), http_call_atom::value,
                get_call(operator_active_site_url(st.opts, nonce), st.opts.request_timeout))
      .then(
          [=](const http_reply& r) {
            auto& s = self->state;
            s.operator_inflight = false;
            auto a = read_operator_answer(authority_of(s.opts), nonce, r);
            if (a.view) {
              s.offers.push_back({*a.view, view_source::operator_poll});
              s.operator_view_this_round = true;
              s.last_operator_contact = std::max(s.last_operator_contact, from_ns(r.sent_at_ns));
              s.operator_reachable = true;
            } else if (r.status != 0) {
              auto f = log_fields(s);
              f["error"] = a.error;
              log::debug("operator answer not accepted", f);
            }
            step_done(self);
          },
          [=](caf::error&) {
            self->state.operator_inflight = false;
            step_done(self);
          });
}

void pull_peer(self_ptr self, size_t i) {
  auto& st = self->state;
  auto w = st.h->peer_http(i);
  if (!w || st.peer_inflight[i]) return;
  st.peer_inflight[i] = true;
  auto nonce = auth::new_nonce();
  ++st.pending;
  self->request(w, http_deadline(st.opts), http_call_atom::value,
                get_call("http://" + st.opts.peers[i] + "/peer/active-site?nonce=" + nonce,
                         st.opts.request_timeout))
      .then(
          [=](const http_reply& r) {
            auto& s = self->state;
            s.peer_inflight[i] = false;
            auto& p = s.peers[i];
            if (r.status == 200) {
              auto a = read_peer_answer(authority_of(s.opts), nonce, r);
              // A view the operator signed is safe to adopt from anyone; only a fresh answer
              // signed by the peer's own key says the peer holds it now and may anchor the lease.
              if (a.view) s.offers.push_back({*a.view, view_source::peer});
              if (a.view && a.fresh) {
                p.kind = peer_view_kind::view;
                p.epoch = a.view->epoch;
                p.last_view_sent = std::max(p.last_view_sent, from_ns(r.sent_at_ns));
              } else {
                auto f = log_fields(s);
                f["peer"] = s.opts.peers[i];
                f["error"] = a.error;
                log::debug("peer answer does not anchor the lease", f);
              }
            } else if (r.status == 204) {
              p.kind = peer_view_kind::no_view;  // restarted without a view: anchors nobody
            } else if (r.status == 404) {
              p.kind = peer_view_kind::old_peer;  // old sidecar: operator-only path, silently
            }
            step_done(self);
          },
          [=](caf::error&) {
            self->state.peer_inflight[i] = false;
            step_done(self);
          });
}

void probe_mysql(self_ptr self) {
  auto& st = self->state;
  auto m = st.h->mysql();
  st.mysql_fresh = false;
  if (!m || st.mysql_inflight) return;
  st.mysql_inflight = true;
  ++st.pending;
  self->request(m, st.opts.request_timeout + ms(3000), probe_atom::value)
      .then(
          [=](const mysql_outcome& o) {
            auto& s = self->state;
            s.mysql_inflight = false;
            s.mysql_fresh = true;
            s.mysql_reachable = o.ok;
            s.mysql_writable = o.ok && o.probe.writable();
            s.super_read_only = o.ok && o.probe.super_read_only;
            step_done(self);
          },
          [=](caf::error&) {
            self->state.mysql_inflight = false;
            step_done(self);
          });
}

void start_round(self_ptr self, bool refresh) {
  auto& st = self->state;
  st.busy = true;
  st.refresh_round = refresh;
  st.operator_view_this_round = false;
  st.offers.clear();
  if (!refresh) st.operator_reachable = false;
  st.pending = 1;  // guard: released below, after every request was sent
  pull_operator(self);
  for (size_t i = 0; i < st.opts.peers.size(); ++i) pull_peer(self, i);
  probe_mysql(self);
  step_done(self);
}

void do_fence(self_ptr self, fence_reason reason, const std::string& why) {
  auto& st = self->state;
  auto m = st.h->mysql();
  auto fields = log_fields(st);
  fields["reason"] = std::string(to_string(reason));
  fields["why"] = why;
  log::warn("SELF-FENCING: setting super_read_only=ON and killing application sessions", fields);
  if (!m) {
    log::error("SELF-FENCING: no MySQL worker; will retry next tick", fields);
    finish_round(self);
    return;
  }
  st.fencing = true;
  self->request(m, st.opts.fence_timeout + ms(2000), self_fence_atom::value,
                std::string(to_string(reason)))
      .then(
          [=](const mysql_outcome& o) {
            auto& s = self->state;
            s.fencing = false;
            auto f = fields;
            if (o.ok) {
              s.fenced = true;
              s.mysql_writable = false;
              s.super_read_only = true;
              self_fence_counter(std::string(to_string(reason))).Increment();
              f["killedSessions"] = o.value;
              log::warn("SELF-FENCED: super_read_only=ON has been set, only Bloodraven can restore", f);
            } else {
              f["error"] = o.error;
              f["errorKind"] = o.error_kind;
              log::error("SELF-FENCING: fence failed; retrying on the next tick", f);
            }
            finish_round(self);
          },
          [=](caf::error& e) {
            self->state.fencing = false;
            auto f = fields;
            f["error"] = caf::to_string(e);
            log::error("SELF-FENCING: fence did not finish in time; retrying on the next tick", f);
            finish_round(self);
          });
}

/// docs/safety.md rule 7: the heartbeat row is dated at the lease's last renewal (`age` before the
/// server's now), so the in-database switch fires no later than this sidecar's own lease would.
void heartbeat(self_ptr self, duration age) {
  auto& st = self->state;
  auto m = st.h->mysql();
  if (!st.opts.dead_mans_switch || !m || st.heartbeat_inflight) return;
  st.heartbeat_inflight = true;
  auto age_us = std::chrono::duration_cast<std::chrono::microseconds>(age).count();
  auto note = [=](const std::string& result, const std::string& error) {
    auto& s = self->state;
    s.heartbeat_inflight = false;
    if (result == s.heartbeat_result) return;
    s.heartbeat_result = result;
    auto f = log_fields(s);
    f["result"] = result;
    if (!error.empty()) f["error"] = error;
    if (result == "refreshed")
      log::info("dead man's switch heartbeat refreshed", f);
    else
      log::warn("dead man's switch heartbeat not written", f);
  };
  self->request(m, st.opts.request_timeout + ms(3000), heartbeat_atom::value,
                static_cast<int64_t>(age_us < 0 ? 0 : age_us))
      .then([=](const mysql_outcome& o) { note(o.ok ? o.value : "failed", o.error); },
            [=](caf::error& e) { note("failed", caf::to_string(e)); });
}

void decide(self_ptr self) {
  auto& st = self->state;
  fencing_input in;
  in.my_site = st.opts.site;
  in.view = st.view;
  in.mysql_reachable = st.mysql_fresh && st.mysql_reachable;
  in.mysql_writable = st.mysql_writable;
  in.now = self->clock().now();
  in.window_start = st.window_start;
  in.last_operator_contact = st.last_operator_contact;
  in.peers = st.peers;
  in.lease_timeout = st.opts.lease_timeout;
  in.fenced = st.fenced;
  in.refreshed = st.refresh_round || st.operator_view_this_round;
  auto d = decide_fencing(in);
  if (d.rearm) {
    st.fenced = false;
    st.window_start = in.now;
    log::info("MySQL is writable again after a self-fence (restored by the operator); fencing "
              "re-armed with a fresh lease window",
              log_fields(st));
  }
  switch (d.action) {
    case fencing_action::none:
      if (in.mysql_reachable && in.mysql_writable) heartbeat(self, in.now - lease_anchor(in));
      finish_round(self);
      return;
    case fencing_action::refresh_view: {
      auto f = log_fields(st);
      f["reason"] = std::string(to_string(d.reason));
      log::warn("SELF-FENCING: view does not name this site; refreshing it once", f);
      start_round(self, true);
      return;
    }
    case fencing_action::fence:
      do_fence(self, d.reason, d.why);
      return;
  }
}

void post_report(self_ptr self, nlohmann::json body) {
  auto& st = self->state;
  auto w = st.h->operator_http();
  if (!w) {
    st.operator_inflight = false;
    return;
  }
  http_call c;
  c.method = "POST";
  c.url = "http://" + st.opts.operator_address + "/sidecar/report";
  c.body = body.dump();
  c.signature = sign(authority_of(st.opts), auth::purpose::report, c.body);
  c.timeout_ms = to_ms(st.opts.request_timeout);
  // The operator endpoint may not exist (404) or be down: the report is best effort.
  self->request(w, http_deadline(st.opts), http_call_atom::value, c)
      .then([=](const http_reply&) { self->state.operator_inflight = false; },
            [=](caf::error&) { self->state.operator_inflight = false; });
}

void report(self_ptr self) {
  auto& st = self->state;
  if (st.opts.operator_address.empty() || st.opts.site.empty()) return;
  auto w = st.h->operator_http();
  if (!w || st.operator_inflight) return;
  nlohmann::json body = {{"site", st.opts.site},
                         {"namespace", st.opts.pod_namespace},
                         {"group", st.opts.group},
                         {"epochSeen", st.view.present ? st.view.view.epoch : 0},
                         {"fenced", st.fenced || (st.mysql_reachable && st.super_read_only)},
                         {"selfFenced", st.fenced},
                         {"mysqlReachable", st.mysql_reachable},
                         // Orders reports: the operator drops any not newer than the last one.
                         {"sentAtMs", std::chrono::duration_cast<ms>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count()}};
  st.operator_inflight = true;
  auto archiver = st.h->archiver();
  if (!archiver) {
    post_report(self, std::move(body));
    return;
  }
  // PITR progress rides along (the operator folds it into /status); a slow archiver only
  // drops it from this report.
  self->request(archiver, ms(1000), status_atom::value)
      .then(
          [=](const std::string& text) mutable {
            auto a = nlohmann::json::parse(text, nullptr, false);
            if (a.is_object()) body["archiver"] = std::move(a);
            post_report(self, body);
          },
          [=](caf::error&) { post_report(self, body); });
}

void finish_round(self_ptr self) {
  auto& st = self->state;
  report(self);
  st.busy = false;
  ++st.ticks;
  report_step(self, "root/fencing_monitor",
              std::string(st.fenced ? "self-fenced" : "watching") + ", epoch " +
                  std::to_string(st.view.present ? st.view.view.epoch : 0));
}

// -- pushed views (PUT /view): push_rule.hpp decides, these functions fetch the facts ------------

void push_continue(self_ptr self, push_result r, caf::typed_response_promise<push_ack> rp);

void push_feed(self_ptr self, push_progress p, const push_input& in,
               caf::typed_response_promise<push_ack> rp) {
  push_continue(self, push_step(std::move(p), in), std::move(rp));
}

nlohmann::json push_fields(self_ptr self, const push_progress& p) {
  auto f = log_fields(self->state);
  f["reason"] = "push";
  f["pushedEpoch"] = p.pushed.epoch;
  return f;
}

/// Fences for a pushed view; the acknowledgement follows only a confirmed fence (gate rule 2).
void fence_for_push(self_ptr self, push_progress p, caf::typed_response_promise<push_ack> rp) {
  auto m = self->state.h->mysql();
  if (!m) {
    push_feed(self, std::move(p), push_event::fence_done{false, "mysql worker unavailable"}, rp);
    return;
  }
  auto f = push_fields(self, p);
  log::warn("SELF-FENCING: pushed view does not name this site; setting super_read_only=ON and "
            "killing application sessions",
            f);
  self->request(m, self->state.opts.fence_timeout + ms(2000), self_fence_atom::value,
                std::string("push"))
      .then(
          [=](const mysql_outcome& o) mutable {
            if (!o.ok) {
              push_feed(self, p, push_event::fence_done{false, "fence failed: " + o.error}, rp);
              return;
            }
            auto& st = self->state;
            st.fenced = true;
            st.mysql_writable = false;
            st.super_read_only = true;
            self_fence_counter("push").Increment();
            auto g = f;
            g["killedSessions"] = o.value;
            log::warn("SELF-FENCED: super_read_only=ON has been set, only Bloodraven can restore", g);
            push_feed(self, p, push_event::fence_done{true, ""}, rp);
          },
          [=](caf::error& e) mutable {
            push_feed(self, p,
                      push_event::fence_done{false, "fence did not finish: " + caf::to_string(e)},
                      rp);
          });
}

/// Rule 1's one refresh from the operator for a pushed view naming another site.
void refresh_for_push(self_ptr self, push_progress p, caf::typed_response_promise<push_ack> rp) {
  auto& st = self->state;
  auto w = st.h->operator_http();
  auto cache = st.h->cache();
  auto no_view = [=]() mutable { push_feed(self, p, push_event::refreshed{}, rp); };
  if (!w || !cache || st.opts.operator_address.empty() || st.opts.pod_namespace.empty() ||
      st.opts.group.empty()) {
    no_view();
    return;
  }
  auto decide_on = [=](const sidecar_view& cur) mutable {
    if (cur.present) self->state.view = cur;
    auto r = push_step(p, push_event::refreshed{cur});
    if (r.action == push_action::answer && r.progress.ack.stale) {
      auto g = push_fields(self, p);
      g["refreshedEpoch"] = cur.view.epoch;
      log::info("pushed view superseded by the operator's fresher view naming this site; not "
                "fencing",
                g);
    }
    push_continue(self, std::move(r), rp);
  };
  auto nonce = auth::new_nonce();
  self->request(w, http_deadline(st.opts), http_call_atom::value,
                get_call(operator_active_site_url(st.opts, nonce), st.opts.request_timeout))
      .then(
          [=](const http_reply& r) mutable {
            auto a = read_operator_answer(authority_of(self->state.opts), nonce, r);
            if (!a.view) {
              no_view();
              return;
            }
            self->state.last_operator_contact =
                std::max(self->state.last_operator_contact, from_ns(r.sent_at_ns));
            self->request(cache, ms(5000), offer_atom::value,
                          view_offer{*a.view, view_source::operator_poll})
                .then(decide_on, [=](caf::error&) mutable { no_view(); });
          },
          [=](caf::error&) mutable { no_view(); });
}

void probe_for_push(self_ptr self, push_progress p, caf::typed_response_promise<push_ack> rp) {
  auto& st = self->state;
  auto m = st.h->mysql();
  if (!m) {
    p.ack.error = "mysql worker unavailable";
    rp.deliver(p.ack);
    return;
  }
  self->request(m, st.opts.request_timeout + ms(3000), probe_atom::value)
      .then(
          [=](const mysql_outcome& o) mutable {
            if (o.ok) self->state.mysql_reachable = true;
            push_feed(self, p, push_event::probed{o, ""}, rp);
          },
          [=](caf::error& e) mutable {
            push_feed(self, p, push_event::probed{std::nullopt, caf::to_string(e)}, rp);
          });
}

void push_continue(self_ptr self, push_result r, caf::typed_response_promise<push_ack> rp) {
  switch (r.action) {
    case push_action::answer:
      rp.deliver(r.progress.ack);
      return;
    case push_action::probe:
      probe_for_push(self, std::move(r.progress), std::move(rp));
      return;
    case push_action::fence:
      fence_for_push(self, std::move(r.progress), std::move(rp));
      return;
    case push_action::refresh:
      refresh_for_push(self, std::move(r.progress), std::move(rp));
      return;
  }
}

void handle_push(self_ptr self, const topology_view& pushed,
                 caf::typed_response_promise<push_ack> rp) {
  auto cache = self->state.h->cache();
  if (!cache) {
    push_ack a;
    a.error = "view cache unavailable";
    rp.deliver(a);
    return;
  }
  push_progress p{pushed, self->state.opts.site, {}};
  self->request(cache, ms(5000), offer_atom::value, view_offer{pushed, view_source::push})
      .then(
          [=](const sidecar_view& cur) mutable {
            auto& st = self->state;
            st.view = cur;
            push_feed(self, p, push_event::offered{cur, st.fenced, st.mysql_reachable}, rp);
          },
          [=](caf::error& e) mutable {
            push_ack a;
            a.error = "view cache: " + caf::to_string(e);
            rp.deliver(a);
          });
}

}  // namespace

std::string operator_active_site_url(const monitor_options& o, const std::string& nonce) {
  return "http://" + o.operator_address + "/active-site?namespace=" + url_escape(o.pod_namespace) +
         "&group=" + url_escape(o.group) + "&nonce=" + nonce;
}

authority authority_of(const monitor_options& o) {
  return {o.keys, auth::group_key(o.pod_namespace, o.group), o.site};
}

fencing_monitor_actor::behavior_type fencing_monitor(self_ptr self, monitor_options opts,
                                                     std::shared_ptr<sidecar_handles> handles) {
  auto& st = self->state;
  st.opts = std::move(opts);
  st.h = std::move(handles);
  st.window_start = self->clock().now();  // startup grace: a full lease before rule 2 can fire
  for (auto& p : st.opts.peers) st.peers.push_back({p, peer_view_kind::unknown, 0, {}});
  st.peer_inflight.assign(st.opts.peers.size(), false);
  self->delayed_send(self, st.opts.interval, tick_atom::value);
  return {
      [=](tick_atom) {
        self->delayed_send(self, self->state.opts.interval, tick_atom::value);
        if (self->state.busy) {
          log::debug("fencing round still running; tick skipped", log_fields(self->state));
          return;
        }
        start_round(self, false);
      },
      [=](push_view_atom, const topology_view& v) {
        auto rp = self->make_response_promise<push_ack>();
        handle_push(self, v, rp);
        return rp;
      },
      [=](status_atom) {
        auto& s = self->state;
        sidecar_status out;
        out.boot_done = s.boot_done;
        out.self_fenced = s.fenced;
        out.epoch = s.view.present ? s.view.view.epoch : 0;
        out.mysql_reachable = s.mysql_reachable;
        out.operator_reachable = s.operator_reachable;
        out.ticks = s.ticks;
        return out;
      },
      [=](boot_done_atom) { self->state.boot_done = true; },
  };
}

}  // namespace br::sidecar
