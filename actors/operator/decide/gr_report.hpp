// One member's snapshot of its group (messages/gr.hpp) as a vote for cross_validate
// (decide/gr_view.hpp). Pure.
#pragma once

#include "actors/operator/decide/gr_view.hpp"
#include "messages/gr.hpp"

namespace br::gr {

/// The vote of a member that answered with `s`: its own id, view id and table.
inline member_report report_of(const gr_snapshot& s) {
  member_report r;
  r.reporter = s.member_id;
  r.reachable = true;
  r.view_id = s.view_id;
  for (const auto& row : s.rows)
    r.rows.push_back({row.member_id, row.host, row.port, parse_member_state(row.state),
                      parse_member_role(row.role)});
  return r;
}

}  // namespace br::gr
