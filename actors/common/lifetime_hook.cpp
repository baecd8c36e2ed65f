// lifetime_hook: an actor that only waits to be stopped (see lifetime_hook.hpp).
#include "actors/common/lifetime_hook.hpp"

#include <caf/all.hpp>

#include "messages/atoms.hpp"

namespace br {

child_spec lifetime_hook(std::string name, std::function<void()> on_stop) {
  return {std::move(name), "lifetime_hook",
          [on_stop](caf::event_based_actor* sup, const std::string&) -> caf::actor {
            return sup->spawn([on_stop](caf::event_based_actor* self) {
              self->attach_functor([on_stop] { on_stop(); });
              // It answers nothing of interest: a ping keeps the behaviour non-empty.
              return caf::behavior{[](ping_atom) {}};
            });
          }};
}

}  // namespace br
