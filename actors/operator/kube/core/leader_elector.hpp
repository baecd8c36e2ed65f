// Leader elector actor: acquires and renews the operator Lease, reports leading/lost (S8).
#pragma once

#include <caf/all.hpp>

#include <memory>

#include "actors/operator/kube/core/lease_lock.hpp"
#include "io/kube/client.hpp"
#include "messages/interfaces.hpp"

namespace br::op {

struct leader_elector_state {
  std::unique_ptr<lease_lock> lock;
  std::shared_ptr<lease_guard> guard;
  leadership_actor listener;
  bool leading = false;
  static inline const char* name = "leader_elector";
};

/// Spawn with caf::detached (its lease calls block, each bounded by the lease deadlines):
///   sys.spawn<caf::detached>(leader_elector, client, cfg, guard, listener)
/// Sends (leading_atom, identity) to `listener` on acquiring and (lost_atom, identity) when it
/// could not renew within renew_deadline of the last successful renew's send time; the guard
/// is cleared before `lost` is sent, and the elector then quits (the operator exits, S8).
/// stop_atom: releases the lease when leading and release_on_stop, then quits.
using elector_ptr = leader_elector_actor::stateful_pointer<leader_elector_state>;

leader_elector_actor::behavior_type leader_elector(elector_ptr self,
                                                   std::shared_ptr<br::kube::client> client,
                                                   election_config cfg,
                                                   std::shared_ptr<lease_guard> guard,
                                                   leadership_actor listener);

}  // namespace br::op
