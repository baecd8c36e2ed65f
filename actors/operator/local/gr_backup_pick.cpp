// The GR backup source of the standalone tool (see gr_backup_pick.hpp).
#include "actors/operator/local/gr_backup_pick.hpp"

#include "actors/operator/decide/gr_backup_source.hpp"
#include "actors/operator/decide/gr_report.hpp"
#include "io/backup/job_common.hpp"
#include "io/mysql/group_replication.hpp"

namespace br::local {

gr_backup_pick pick_gr_backup_source(const std::vector<backup::mysql_target>& members,
                                     const std::string& override_member) {
  gr_backup_pick out;
  struct read {
    std::optional<gr_snapshot> snap;
    std::optional<gtid_set> gtids;
    std::string error;
  };
  std::vector<read> reads(members.size());
  std::vector<gr::member_report> reports;
  for (std::size_t i = 0; i < members.size(); ++i) {
    auto& rd = reads[i];
    auto conn = backup::open_session(members[i]);
    if (conn) {
      auto s = mysql::read_gr_snapshot(*conn);
      auto g = conn->query("SELECT @@gtid_executed");
      if (s && !s->member_id.empty()) rd.snap = *s;
      else rd.error = s ? "no server_uuid" : s.error().to_string();
      if (g && !g->rows.empty() && !g->rows[0].empty() && g->rows[0][0])
        rd.gtids = gtid_set::parse(*g->rows[0][0]);
    } else {
      rd.error = conn.error().to_string();
    }
    gr::member_report r;
    if (rd.snap) r = gr::report_of(*rd.snap);
    else r.reporter = members[i].describe();  // no vote
    reports.push_back(std::move(r));
  }
  auto view = gr::cross_validate(reports, members.size(), 0);
  gr::backup_source_facts f;
  f.view_known = view.known;
  f.has_quorum = view.has_quorum;
  f.override_name = override_member;
  for (std::size_t i = 0; i < members.size(); ++i) {
    gr::backup_member m;
    m.name = members[i].describe();
    m.reachable = reads[i].snap.has_value();
    m.gtid_executed = reads[i].gtids;
    if (reads[i].snap)
      for (const auto& vm : view.members)
        if (vm.member_id == reads[i].snap->member_id) {
          m.state = vm.state;
          m.role = vm.role;
        }
    std::string line = m.name + " " + std::string{gr::to_string(m.state)};
    if (m.role != gr::member_role::none) line += " " + std::string{gr::to_string(m.role)};
    if (!reads[i].error.empty()) line += " (" + reads[i].error + ")";
    out.members.push_back(std::move(line));
    f.members.push_back(std::move(m));
  }
  auto choice = gr::choose_backup_source(f);
  out.reason = choice.reason + (view.known ? "" : ": " + view.reason);
  out.primary = choice.primary;
  for (std::size_t i = 0; i < members.size(); ++i)
    if (!choice.name.empty() && f.members[i].name == choice.name) {
      out.index = i;
      out.group_name = reads[i].snap ? reads[i].snap->group_name : "";
    }
  return out;
}

}  // namespace br::local
