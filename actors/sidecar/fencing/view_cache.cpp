// View cache: epoch-monotonic adoption (fencing_rules::should_adopt), fsynced file, epoch gauge.
#include "actors/sidecar/fencing/view_cache.hpp"

#include <caf/all.hpp>

#include "actors/sidecar/fencing/fencing_rules.hpp"
#include "actors/sidecar/common/sidecar_metrics.hpp"
#include "actors/common/view_json.hpp"
#include "config/sidecar_config.hpp"
#include "io/fs/atomic_file.hpp"
#include "io/log/log.hpp"

namespace br::sidecar {

namespace {

std::string source_name(view_source s) {
  switch (s) {
    case view_source::operator_poll: return "operator";
    case view_source::peer: return "peer";
    case view_source::push: return "push";
    case view_source::boot: return "boot";
    case view_source::file: return "file";
  }
  return "unknown";
}

struct cache_state {
  std::string dir;
  sidecar_view current;
  static inline const char* name = "sidecar_view_cache";
};

view_cache_actor::behavior_type cache(view_cache_actor::stateful_pointer<cache_state> self,
                                      std::string dir) {
  self->state.dir = std::move(dir);
  if (!self->state.dir.empty()) {
    std::string err;
    self->state.current = load_view(self->state.dir, err);
    if (!err.empty()) log::error("cannot read the persisted view", {{"error", err}});
    if (self->state.current.present) {
      auto& v = self->state.current.view;
      log::info("view loaded from file",
                {{"epoch", v.epoch}, {"activeSite", v.active_site}, {"deposing", v.deposing}});
      view_epoch_gauge().Set(static_cast<double>(v.epoch));
    }
  }
  return {
      [=](view_atom) { return self->state.current; },
      [=](offer_atom, const view_offer& o) {
        auto& st = self->state;
        if (!should_adopt(st.current, o.view, o.source)) return st.current;
        bool changed = !st.current.present || st.current.view.epoch != o.view.epoch ||
                       st.current.view.active_site != o.view.active_site ||
                       st.current.view.deposing != o.view.deposing;
        if (changed && !st.dir.empty()) {
          // Persist first: a restart must never find an older view than one we acted on.
          auto err = persist_view(st.dir, o.view);
          if (!err.empty()) log::error("cannot persist the view", {{"error", err}, {"epoch", o.view.epoch}});
        }
        if (changed)
          log::info("view adopted", {{"epoch", o.view.epoch},
                                     {"activeSite", o.view.active_site},
                                     {"deposing", o.view.deposing},
                                     {"source", source_name(o.source)}});
        st.current.present = true;
        st.current.view = o.view;
        view_epoch_gauge().Set(static_cast<double>(o.view.epoch));
        return st.current;
      },
  };
}

}  // namespace

std::string persist_view(const std::string& dir, const topology_view& view) {
  return fs::write_file_atomic(dir + "/view.json", view_to_json(view) + "\n", 0600);
}

sidecar_view load_view(const std::string& dir, std::string& error) {
  sidecar_view out;
  error.clear();
  auto path = dir + "/view.json";
  if (::access(path.c_str(), F_OK) != 0) return out;
  auto body = config::read_small_file(path);
  if (!body) {
    error = "cannot read " + path;
    return out;
  }
  auto v = parse_view_answer(*body);
  if (!v) {
    error = path + " is not a view";
    return out;
  }
  out.present = true;
  out.view = *v;
  return out;
}

view_cache_actor spawn_view_cache(caf::actor_system& sys, std::string state_dir, bool detached) {
  if (!detached) return sys.spawn(cache, std::move(state_dir));
  return sys.spawn<caf::detached>(cache, std::move(state_dir));
}

}  // namespace br::sidecar
