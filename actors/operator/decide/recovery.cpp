// Old-primary recovery: containment classification and returning-primary detection.
#include "actors/operator/decide/recovery.hpp"

namespace br {

recovery_classification classify_recovery(const gtid_set& old_primary, const gtid_set& active) {
  recovery_classification out;
  out.divergent = old_primary.subtract(active);
  if (out.divergent.empty()) return out;
  out.kind = recovery_kind::divergent;
  out.divergent_gtid = out.divergent.to_compact_string();
  out.divergent_count = out.divergent.count();
  return out;
}

bool detect_returning_primary(const returning_primary_facts& f) {
  if (f.state != site_state::read_only || f.site.empty() || f.site == f.active_site) return false;
  return f.recovery_pending || (!f.replication_configured && f.prior_failover);
}

}  // namespace br
