// What an actor tells the registry about itself (for the /debug/actors inspection tree).
#pragma once

#include <cstdint>
#include <string>

namespace br {

/// An actor's announcement: its place in the supervision tree. `path` is unique
/// ("root/group:orders/poller:iad"); `parent` is the parent's path ("" for the root).
struct actor_entry {
  std::string path;
  std::string name;
  std::string kind;
  std::string parent;
  uint64_t id = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, actor_entry& x) {
  return f(caf::meta::type_name("actor_entry"), x.path, x.name, x.kind, x.parent, x.id);
}

}  // namespace br
