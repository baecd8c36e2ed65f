// Validation of the reclone annotation bloodraven.shipstream.io/reclone-site.
//
// Accepted forms (surrounding whitespace ignored; the site is everything before the first ':'):
//   <site>:<prefix>          the site has a recorded divergentGtid and <prefix> (whitespace
//                            removed) has at least 8 characters and is a case-insensitive prefix
//                            of that record in compact form (whitespace removed, so the server's
//                            ",\n" separator compares equal to ",").
//   <site>:confirm=<group>   cold reclone (PVC loss, manual rebuild): only when the site has no
//                            recorded divergentGtid, and <group> must equal the group's name.
//   <site>:restore=<token>   after an in-place restore (spec.restoreInPlace): <token> is the
//                            restore's confirm, recorded by the coordinator and used (the freeze
//                            lifted); it stands as the confirmation that everything the site holds
//                            beyond the restored primary is discarded, whatever divergence is
//                            recorded. Each site once per token, never the restored site, never
//                            after an abandoned restore (its target is restore-pending itself).
// Rejected, each with its own reason text for the RecloneRejected Warning event: empty value,
// no site, unknown site, the active primary, bare <site> (with or without a recorded
// divergentGtid: the older bare form is no longer accepted), empty token, confirm= for a site
// with recorded divergence, confirm= naming another group, a prefix for a site without recorded
// divergence, a prefix shorter than 8 characters, a prefix that does not match.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "messages/decisions.hpp"
#include "messages/operator.hpp"

namespace br {

/// Minimum length of the divergentGtid prefix token.
inline constexpr size_t reclone_min_prefix = 8;

reclone_validation validate_reclone_token(std::string_view annotation, const std::string& group,
                                          const std::vector<std::string>& sites,
                                          const std::map<std::string, std::string>& divergent_gtid,
                                          const std::string& active_site,
                                          const restore_freeze_record& restore = {});

}  // namespace br
