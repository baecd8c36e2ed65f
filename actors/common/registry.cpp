// Registry actor: keeps one record per actor path and renders the tree as JSON.
#include "actors/common/registry.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include <map>

namespace br {
namespace {

struct record {
  actor_entry entry;
  bool alive = true;
  uint64_t restarts = 0;
  std::string step = "started";
  caf::actor_clock::time_point step_since{};
  std::string last_error;
  std::string exit_reason;
};

struct registry_state {
  std::map<std::string, record> records;
  std::map<caf::actor_addr, std::string> path_of;
  static inline const char* name = "registry";
};

double seconds_between(caf::actor_clock::time_point a, caf::actor_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

nlohmann::json render(const registry_state& st, const std::string& path,
                      caf::actor_clock::time_point now) {
  auto& r = st.records.at(path);
  nlohmann::json j = {
      {"path", path},
      {"name", r.entry.name},
      {"kind", r.entry.kind},
      {"id", r.entry.id},
      {"parent", r.entry.parent.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.entry.parent)},
      {"alive", r.alive},
      {"restarts", r.restarts},
      {"step", r.step},
      {"timeInStepSeconds", seconds_between(r.step_since, now)},
      {"lastError", r.last_error.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.last_error)},
  };
  if (!r.exit_reason.empty()) j["exitReason"] = r.exit_reason;
  auto children = nlohmann::json::array();
  for (auto& [p, child] : st.records)
    if (child.entry.parent == path) children.push_back(render(st, p, now));
  j["children"] = std::move(children);
  return j;
}

registry_actor::behavior_type registry_impl(registry_actor::stateful_pointer<registry_state> self) {
  // The registry lists itself, so the tree shows every actor the process runs.
  auto& me = self->state.records["registry"];
  me.entry = actor_entry{"registry", "registry", "registry", "", self->id()};
  me.step = "serving";
  me.step_since = self->clock().now();
  self->set_down_handler([=](caf::down_msg& dm) {
    auto it = self->state.path_of.find(dm.source);
    if (it == self->state.path_of.end()) return;
    auto rec = self->state.records.find(it->second);
    if (rec != self->state.records.end() && rec->second.entry.id == dm.source.id()) {
      rec->second.alive = false;
      rec->second.step = "stopped";
      rec->second.step_since = self->clock().now();
      rec->second.exit_reason = dm.reason ? to_string(dm.reason) : "normal";
      if (dm.reason && dm.reason != caf::exit_reason::user_shutdown)
        rec->second.last_error = rec->second.exit_reason;
    }
    self->state.path_of.erase(it);
  });
  return {
      [=](announce_atom, actor_entry& e) {
        auto& r = self->state.records[e.path];
        r.entry = e;
        r.alive = true;
        r.step = "started";
        r.step_since = self->clock().now();
        r.exit_reason.clear();
        // The sender as a strong pointer, to monitor it (no type involved).
        if (auto src = caf::actor_cast<caf::strong_actor_ptr>(self->current_sender())) {
          auto addr = src->address();
          if (addr.id() == e.id) {
            self->state.path_of[addr] = e.path;
            self->monitor(src);
          }
        }
      },
      [=](announce_atom, actor_entry& e, caf::actor& handle) {
        auto& r = self->state.records[e.path];
        // A supervisor announces each child it starts, and the child may announce itself too,
        // in either order: the actor's own kind wins, whichever message arrives first.
        if (r.entry.id == e.id && !r.entry.kind.empty()) e.kind = r.entry.kind;
        r.entry = e;
        r.alive = true;
        r.step = "started";
        r.step_since = self->clock().now();
        r.exit_reason.clear();
        if (handle && handle.id() == e.id) {
          self->state.path_of[handle.address()] = e.path;
          self->monitor(handle);
        }
      },
      [=](step_atom, std::string& path, std::string& step) {
        auto it = self->state.records.find(path);
        if (it == self->state.records.end() || it->second.step == step) return;
        it->second.step = std::move(step);
        it->second.step_since = self->clock().now();
      },
      [=](error_atom, std::string& path, std::string& err) {
        auto it = self->state.records.find(path);
        if (it != self->state.records.end()) it->second.last_error = std::move(err);
      },
      [=](restarts_atom, std::string& path, uint64_t n) {
        // A restart can be recorded before the new incarnation announces itself.
        auto& r = self->state.records[path];
        if (r.entry.path.empty()) {
          r.entry.path = path;
          r.entry.name = name_of(path);
          r.entry.parent = parent_of(path);
          r.alive = false;
        }
        r.restarts = n;
      },
      [=](tree_atom) -> std::string {
        auto now = self->clock().now();
        auto roots = nlohmann::json::array();
        size_t alive = 0;
        for (auto& [p, r] : self->state.records) {
          if (r.alive) ++alive;
          if (r.entry.parent.empty() || !self->state.records.count(r.entry.parent))
            roots.push_back(render(self->state, p, now));
        }
        nlohmann::json out = {{"actors", roots},
                              {"count", self->state.records.size()},
                              {"alive", alive}};
        return out.dump();
      },
  };
}

}  // namespace

std::string parent_of(const std::string& path) {
  auto pos = path.rfind('/');
  return pos == std::string::npos ? std::string{} : path.substr(0, pos);
}

std::string name_of(const std::string& path) {
  auto pos = path.rfind('/');
  return pos == std::string::npos ? path : path.substr(pos + 1);
}

registry_actor spawn_registry(caf::actor_system& sys) {
  auto r = sys.spawn(registry_impl);
  // CAF's system registry stores untyped pointers; find_registry casts this one back.
  sys.registry().put(caf::atom("registry"), caf::actor_cast<caf::strong_actor_ptr>(r));
  return r;
}

registry_actor find_registry(caf::actor_system& sys) {
  // Only spawn_registry puts this name, and it puts a registry_actor.
  return caf::actor_cast<registry_actor>(sys.registry().get(caf::atom("registry")));
}

}  // namespace br
