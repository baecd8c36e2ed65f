// Recording platform actors and the scriptable mock site_io for virtual-time actor tests.
#include "tests/support/recording_platform.hpp"

#include "config/group_status.hpp"

#include <caf/all.hpp>

namespace br::test {

size_t platform_record::count_events(const std::string& reason) const {
  size_t n = 0;
  for (const auto& e : events) n += e.reason == reason ? 1 : 0;
  return n;
}

const group_event* platform_record::last_event(const std::string& reason) const {
  for (auto it = events.rbegin(); it != events.rend(); ++it)
    if (it->reason == reason) return &*it;
  return nullptr;
}

std::vector<mysql_op> site_io_record::ops_for(const std::string& site) const {
  std::vector<mysql_op> out;
  for (const auto& c : commands)
    if (c.target.site == site) out.push_back(c.op);
  return out;
}

size_t site_io_record::count(const std::string& site, mysql_op op) const {
  size_t n = 0;
  for (const auto& c : commands) n += (c.target.site == site && c.op == op) ? 1 : 0;
  return n;
}

namespace {

// Unexpected messages are recorded (tests assert the list is empty) and answered with an error.
template <class Rec>
void fail_loudly(caf::event_based_actor* self, std::shared_ptr<Rec> rec, const char* who) {
  self->set_default_handler(
      [rec, who](caf::scheduled_actor*, caf::message_view& x) -> caf::result<caf::message> {
        rec->unexpected.push_back(std::string(who) + ": " + to_string(x.content()));
        return caf::sec::unexpected_message;
      });
}

struct store_state {
  std::vector<std::pair<caf::response_promise, durable_state>> held;
};

caf::behavior recording_store(caf::stateful_actor<store_state>* self,
                              std::shared_ptr<platform_record> rec) {
  fail_loudly(self, rec, "store");
  return {
      [=](persist_atom, const std::string&, const durable_state& s) -> caf::result<bool> {
        rec->persisted.push_back(s);
        if (rec->refuse_persists) return false;
        if (rec->hold_persists) {
          auto rp = self->make_response_promise();
          self->state.held.emplace_back(rp, s);
          return caf::delegated<bool>();
        }
        rec->disk = s;
        rec->has_disk = true;
        return true;
      },
      [=](load_atom, const std::string&) {
        ++rec->loads;
        return rec->has_disk ? rec->disk : durable_state{};
      },
      [=](release_atom) {
        auto held = std::move(self->state.held);
        self->state.held.clear();
        for (auto& [rp, s] : held) {
          rec->disk = s;
          rec->has_disk = true;
          rp.deliver(true);
        }
      },
  };
}

}  // namespace

recording_platform spawn_recording_platform(caf::actor_system& sys) {
  recording_platform p;
  p.rec = std::make_shared<platform_record>();
  auto rec = p.rec;
  p.handles.router = caf::actor_cast<router_actor>(sys.spawn([rec](caf::event_based_actor* self) {
    fail_loudly(self, rec, "router");
    return caf::behavior{[=](route_atom, const std::string& g, const std::string& primary,
                             const std::vector<std::string>& replicas) {
      rec->routes.emplace_back(g, primary, replicas);
      return true;
    }};
  }));
  p.handles.dns = caf::actor_cast<dns_actor>(sys.spawn([rec](caf::event_based_actor* self) {
    fail_loudly(self, rec, "dns");
    return caf::behavior{
        [=](dns_atom, const std::string& g, const std::string& site, const std::string& target) {
          rec->dns.emplace_back(g, site, target);
          return true;
        }};
  }));
  p.handles.taints = caf::actor_cast<taint_actor>(sys.spawn([rec](caf::event_based_actor* self) {
    fail_loudly(self, rec, "taints");
    return caf::behavior{[=](taint_atom, const std::string& g, const std::string& site, bool on) {
      rec->taints.emplace_back(g, site, on);
      return true;
    }};
  }));
  p.handles.events = caf::actor_cast<event_actor>(sys.spawn([rec](caf::event_based_actor* self) {
    fail_loudly(self, rec, "events");
    return caf::behavior{[=](event_atom, const group_event& e) { rec->events.push_back(e); }};
  }));
  p.store_raw = sys.spawn(recording_store, rec);
  p.handles.store = caf::actor_cast<state_store_actor>(p.store_raw);
  p.handles.status =
      caf::actor_cast<status_writer_actor>(sys.spawn([rec](caf::event_based_actor* self) {
        fail_loudly(self, rec, "status");
        return caf::behavior{[=](status_atom, const std::string& g,
                                 const config::group_status& status) {
          rec->status[g] = nlohmann::json(status).dump();
          ++rec->status_writes;
        }};
      }));
  return p;
}

void stop_recording_platform(const recording_platform& p) {
  auto kill = [](const auto& h) {
    if (h) caf::anon_send_exit(h, caf::exit_reason::kill);
  };
  kill(p.handles.router);
  kill(p.handles.dns);
  kill(p.handles.taints);
  kill(p.handles.events);
  kill(p.handles.store);
  kill(p.handles.status);
}

site_io_actor spawn_mock_site_io(caf::actor_system& sys, std::shared_ptr<site_io_record> rec) {
  auto h = sys.spawn([rec](caf::event_based_actor* self) {
    fail_loudly(self, rec, "site_io");
    auto held = std::make_shared<std::vector<caf::response_promise>>();
    return caf::behavior{[=](const mysql_command& cmd) -> caf::result<mysql_outcome> {
      const auto& site = cmd.target.site;
      if (cmd.op == mysql_op::probe) {
        ++rec->probes[site];
        if (rec->hung.count(site)) {
          held->push_back(self->make_response_promise());  // never answered
          return caf::delegated<mysql_outcome>();
        }
        auto& q = rec->script[site];
        if (!q.empty()) {
          auto out = q.front();
          q.pop_front();
          return out;
        }
        auto it = rec->probe.find(site);
        if (it == rec->probe.end()) return failed_probe();
        return it->second;
      }
      if (cmd.op == mysql_op::heartbeat || cmd.op == mysql_op::ensure_switch) {
        // The dead man's switch upkeep of the active site: counted apart from the plan's work.
        rec->switch_ops.push_back(cmd.op);
        rec->switch_sites.push_back(site);
        if (auto it = rec->answers.find({site, cmd.op}); it != rec->answers.end()) return it->second;
        mysql_outcome ok;
        ok.ok = true;
        ok.value = cmd.op == mysql_op::heartbeat ? "refreshed" : "armed";
        return ok;
      }
      rec->commands.push_back(cmd);
      if (auto it = rec->answers.find({site, cmd.op}); it != rec->answers.end()) return it->second;
      mysql_outcome ok;
      ok.ok = true;
      if (cmd.op == mysql_op::read_gtid)
        if (auto p = rec->probe.find(site); p != rec->probe.end())
          ok.value = p->second.probe.gtid_executed;
      return ok;
    }};
  });
  return caf::actor_cast<site_io_actor>(h);
}

mysql_outcome writable_probe(const std::string& gtid) {
  mysql_outcome o;
  o.ok = true;
  o.probe.read_only = false;
  o.probe.super_read_only = false;
  o.probe.gtid_executed = gtid;
  return o;
}

mysql_outcome read_only_probe(const std::string& gtid, bool channel) {
  mysql_outcome o;
  o.ok = true;
  o.probe.read_only = true;
  o.probe.super_read_only = true;
  o.probe.gtid_executed = gtid;
  o.probe.channel_configured = channel;
  if (channel) {
    o.probe.io_state = "ON";
    o.probe.sql_state = "ON";
    o.probe.seconds_behind = 0;
  }
  return o;
}

mysql_outcome failed_probe(const std::string& kind) {
  mysql_outcome o;
  o.ok = false;
  o.error_kind = kind;
  o.error = kind + ": injected by the test";
  return o;
}

}  // namespace br::test
