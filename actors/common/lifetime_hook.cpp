// lifetime_hook: an actor that only waits to be stopped (see lifetime_hook.hpp).
#include "actors/common/lifetime_hook.hpp"

#include <caf/all.hpp>

#include "messages/interfaces.hpp"

namespace br {

child_spec lifetime_hook(std::string name, std::function<void()> on_stop) {
  return {std::move(name), "lifetime_hook",
          [on_stop](caf::local_actor* sup, const std::string&) -> caf::actor {
            return as_child(sup->spawn(
                [on_stop](lifetime_hook_actor::pointer self) -> lifetime_hook_actor::behavior_type {
                  self->attach_functor([on_stop] { on_stop(); });
                  return {[](ping_atom) {}};
                }));
          }};
}

}  // namespace br
