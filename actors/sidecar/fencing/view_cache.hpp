// The sidecar's view cache: owns the cached topology view and its durable copy (view.json).
#pragma once

#include <caf/actor_system.hpp>

#include <string>

#include "messages/interfaces.hpp"

namespace br::sidecar {

/// Writes `view` to dir/view.json atomically: temp file, fsync, rename, fsync of the directory.
/// Returns "" on success, else what failed.
std::string persist_view(const std::string& dir, const topology_view& view);

/// Reads dir/view.json; `present` false when missing or unreadable (`error` says why, "" when the
/// file simply does not exist).
sidecar_view load_view(const std::string& dir, std::string& error);

/// Spawns the cache detached (persisting fsyncs; that must not stall a scheduler thread). With a
/// non-empty `state_dir` it starts from the file, and persists every adopted view before it
/// answers the offer.
/// `detached` false is for virtual-time tests (the test coordinator runs everything on one thread).
view_cache_actor spawn_view_cache(caf::actor_system& sys, std::string state_dir,
                                  bool detached = true);

}  // namespace br::sidecar
