// A keys directory: where the operator's and the sidecars' Ed25519 keys live (a file in
// standalone mode, projected from a Secret in Kubernetes). File names are flat so a Secret's
// keys map onto them one to one:
//   operator.key      the operator's private key (PEM)            read by the operator only
//   operator.pub      accepted operator public keys (1-2 PEM)     read by every sidecar
//   site-<site>.key   one site's private key (PEM)                read by that site's sidecar only
//   site-<site>.pub   one site's public key(s) (PEM)              read by the operator and peers
// Rotation: write the new key's public half into operator.pub next to the old one, roll the
// sidecars, then switch operator.key; drop the old public key afterwards.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "actors/common/authority.hpp"

namespace br::auth {

struct key_ring_load {
  std::optional<key_ring> ring;
  std::string error;  ///< names the file and what is wrong with it
};

/// The operator's ring: operator.key (required), operator.pub (optional; default the key's own
/// public half; it must contain that half), site-<site>.pub for every site in `sites` (required).
key_ring_load load_operator_keys(const std::string& dir, const std::vector<std::string>& sites);

/// A sidecar's ring: operator.pub (required), site-<site>.key (required), every site-*.pub.
key_ring_load load_sidecar_keys(const std::string& dir, const std::string& site);

/// Creates the directory's keys for an operator and `sites` (0600 private, 0644 public files);
/// existing files are kept. "" on success, else what failed. (`bloodraven keygen`)
std::string write_key_dir(const std::string& dir, const std::vector<std::string>& sites);

}  // namespace br::auth
