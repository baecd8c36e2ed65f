// PITR decisions: which archived binlogs a replay takes (all sites' manifests), in what order,
// what it refuses (gap, bound beyond the archive, GTID bound not reached), and the stop-bound
// checks against the backup (acceptance 4: a stop datetime before the backup is refused); the
// history starts (an in-place restore's reset, a new or recloned server) and the plans refused across them.
#include <boost/test/unit_test.hpp>

#include "io/backup/archive_lineage.hpp"
#include "io/backup/pitr_plan.hpp"
#include "io/binlog/binlog_name.hpp"

using namespace br;
using namespace br::backup;

namespace {

const std::string A = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
const std::string B = "4e11fa47-71ca-11e1-9e33-c80aa9429562";

gtid_set gs(const std::string& text) { return *gtid_set::parse(text); }

// Times as minutes after 10:00 on one day.
std::string at(int minute) { return binlog::rfc3339(1795000000 + minute * 60); }
int64_t unix_at(int minute) { return 1795000000 + minute * 60; }
// A backup's consistent point after the fixtures' first files were created (they start with an
// empty Previous_gtids: a history start, archive_lineage.hpp), where only the GTID sets matter.
const int64_t early = unix_at(1);

binlog::manifest_entry file(const std::string& site, const std::string& name, const std::string& prev,
                            const std::string& end, int first, int last) {
  binlog::manifest_entry e;
  e.name = name;
  e.remote_path = "binlogs/" + site + "/" + name;
  e.size = 1000;
  e.first_event_time = at(first);
  e.last_event_time = at(last);
  e.previous_gtids = prev;
  e.end_gtids = end;
  e.archived_at = at(last + 1);
  return e;
}

binlog::manifest site(const std::string& name, std::vector<binlog::manifest_entry> files) {
  binlog::manifest m;
  m.site = name;
  m.files = std::move(files);
  return m;
}

stop_bound at_time(int minute) {
  stop_bound s;
  s.what = stop_bound::kind::datetime;
  s.unix_seconds = unix_at(minute);
  return s;
}

stop_bound at_gtids(const std::string& set) {
  stop_bound s;
  s.what = stop_bound::kind::gtid;
  s.gtids = gs(set);
  return s;
}

std::vector<std::string> names(const replay_plan& p) {
  std::vector<std::string> out;
  for (const auto& f : p.files) out.push_back(f.site + "/" + f.name);
  return out;
}

// One site, three sealed files: 1-10 (min 0-10), 11-20 (10-20), 21-30 (20-30).
std::vector<binlog::manifest> one_site() {
  return {site("s1", {file("s1", "binlog.000001", "", A + ":1-10", 0, 10),
                      file("s1", "binlog.000002", A + ":1-10", A + ":1-20", 10, 20),
                      file("s1", "binlog.000003", A + ":1-20", A + ":1-30", 20, 30)})};
}

// One site whose primary was restored in place at minute 25 to a backup holding A:1-5 (taken at
// minute 5): RESET BINARY LOGS AND GTIDS TO 3, the discarded A:6-20 added to gtid_purged, so the
// new writes are A:21-..; the file after the reset starts with an empty Previous_gtids (the
// purged sets are never in it). A second restore at minute 45 (to a backup of minute 32).
std::vector<binlog::manifest> restored_site() {
  return {site("s1", {file("s1", "binlog.000001", "", A + ":1-10", 0, 10),
                      file("s1", "binlog.000002", A + ":1-10", A + ":1-20", 10, 20),
                      file("s1", "binlog.000003", "", A + ":21-25", 25, 30),
                      file("s1", "binlog.000004", A + ":21-25", A + ":21-30", 30, 40),
                      file("s1", "binlog.000005", "", A + ":31-32", 45, 50),
                      file("s1", "binlog.000006", A + ":31-32", A + ":31-35", 50, 60)})};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(backup_pitr_plan)

BOOST_AUTO_TEST_CASE(datetime_table) {
  struct row {
    std::string what;
    std::string backup;
    int stop_minute;
    std::vector<std::string> files;
    std::string error_part;  // "" = no error
  };
  std::vector<row> rows = {
      // Backup inside file 2: file 1 is already held; file 2 holds the rest up to 15.
      {"stop inside the backup's file", A + ":1-15", 17, {"s1/binlog.000002"}, ""},
      {"stop in a later file takes the files between", A + ":1-15", 25,
       {"s1/binlog.000002", "s1/binlog.000003"}, ""},
      {"a file starting at or after the stop is not taken", A + ":1-15", 20, {"s1/binlog.000002"}, ""},
      {"stop exactly at a file's last event ends there", A + ":1-12", 20, {"s1/binlog.000002"}, ""},
      {"backup at a file boundary skips the held file", A + ":1-20", 25, {"s1/binlog.000003"}, ""},
      {"stop after the newest archived event is refused", A + ":1-15", 31, {}, "after the newest archived"},
      {"everything held and the archive reaches the stop: nothing to replay", A + ":1-30", 29, {}, ""},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.what) {
      auto p = plan_replay(gs(r.backup), early, at_time(r.stop_minute), one_site());
      if (r.error_part.empty()) {
        BOOST_TEST(p.error == "");
        BOOST_TEST(names(p) == r.files, boost::test_tools::per_element());
      } else {
        BOOST_TEST(p.error.find(r.error_part) != std::string::npos, p.error);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(gap_in_the_archive_is_refused) {
  auto m = one_site();
  m[0].files.erase(m[0].files.begin() + 1);  // binlog.000002 lost
  auto p = plan_replay(gs(A + ":1-5"), early, at_time(25), m);
  BOOST_TEST(p.error.find("gap") != std::string::npos, p.error);
  BOOST_TEST(p.error.find("binlog.000003") != std::string::npos, p.error);
  // The same gap before a stop that needs only file 1 does not matter.
  auto q = plan_replay(gs(A + ":1-5"), early, at_time(9), m);
  BOOST_TEST(q.error == "");
  BOOST_TEST(names(q) == std::vector<std::string>{"s1/binlog.000001"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(failover_merges_sites_in_gtid_order) {
  // s1 was primary until minute 20 (A:1-20); s2 promoted, its binlogs hold A:1-20 replicated
  // (log_replica_updates) and then its own B:1-.. writes.
  std::vector<binlog::manifest> m = {
      site("s1", {file("s1", "binlog.000001", "", A + ":1-10", 0, 10),
                  file("s1", "binlog.000002", A + ":1-10", A + ":1-20", 10, 20)}),
      site("s2", {file("s2", "binlog.000007", A + ":1-18", A + ":1-20," + B + ":1-5", 19, 30),
                  file("s2", "binlog.000008", A + ":1-20," + B + ":1-5", A + ":1-20," + B + ":1-9", 30, 40)})};
  auto p = plan_replay(gs(A + ":1-15"), early, at_time(35), m);
  BOOST_TEST(p.error == "");
  BOOST_TEST(names(p) == (std::vector<std::string>{"s1/binlog.000002", "s2/binlog.000007", "s2/binlog.000008"}),
             boost::test_tools::per_element());
  // A backup taken on s2 after the failover needs only s2's files.
  auto q = plan_replay(gs(A + ":1-20," + B + ":1-2"), early, at_time(35), m);
  BOOST_TEST(q.error == "");
  BOOST_TEST(names(q) == (std::vector<std::string>{"s2/binlog.000007", "s2/binlog.000008"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(gtid_bound_table) {
  auto p = plan_replay(gs(A + ":1-15"), early, at_gtids(A + ":1-22"), one_site());
  BOOST_TEST(p.error == "");
  BOOST_TEST(names(p) == (std::vector<std::string>{"s1/binlog.000002", "s1/binlog.000003"}),
             boost::test_tools::per_element());
  auto held = plan_replay(gs(A + ":1-15"), early, at_gtids(A + ":1-15"), one_site());
  BOOST_TEST(held.error == "");
  BOOST_TEST(held.files.empty());
  auto beyond = plan_replay(gs(A + ":1-15"), early, at_gtids(A + ":1-35"), one_site());
  BOOST_TEST(beyond.error.find("does not reach --stop-gtid: missing " + A + ":31-35") != std::string::npos,
             beyond.error);
}

BOOST_AUTO_TEST_CASE(latest_takes_every_archived_transaction_after_the_backup) {
  stop_bound latest;
  latest.what = stop_bound::kind::latest;
  auto p = plan_replay(gs(A + ":1-15"), early, latest, one_site());
  BOOST_TEST(p.error == "");
  BOOST_TEST(names(p) == (std::vector<std::string>{"s1/binlog.000002", "s1/binlog.000003"}),
             boost::test_tools::per_element());
  BOOST_TEST(p.covered.to_compact_string() == A + ":1-30");
  BOOST_TEST(p.last_event_unix == unix_at(30));
  auto held = plan_replay(gs(A + ":1-30"), early, latest, one_site());
  BOOST_TEST(held.error == "");
  BOOST_TEST(held.files.empty());
  BOOST_TEST(held.last_event_unix == 0);
  auto m = one_site();
  m[0].files.erase(m[0].files.begin() + 1);  // binlog.000002 lost: a gap refuses latest
  auto gap = plan_replay(gs(A + ":1-15"), early, latest, m);
  BOOST_TEST(gap.error.find("gap") != std::string::npos, gap.error);
  BOOST_TEST(check_stop_bound(latest, unix_at(15), gs(A + ":1-15")) == "");
}

BOOST_AUTO_TEST_CASE(last_replayed_event_is_capped_by_a_stop_datetime) {
  auto p = plan_replay(gs(A + ":1-15"), early, at_time(25), one_site());
  BOOST_TEST(p.last_event_unix == unix_at(25) - 1);
  auto q = plan_replay(gs(A + ":1-15"), early, at_gtids(A + ":1-20"), one_site());
  BOOST_TEST(q.last_event_unix == unix_at(20));
}

BOOST_AUTO_TEST_CASE(no_bound_plans_nothing) {
  auto p = plan_replay(gs(A + ":1-15"), early, stop_bound{}, one_site());
  BOOST_TEST(p.error == "");
  BOOST_TEST(p.files.empty());
}

BOOST_AUTO_TEST_CASE(unreadable_manifest_entry_is_an_error) {
  auto m = one_site();
  m[0].files[1].end_gtids = "not a set";
  auto p = plan_replay(gs(A + ":1-15"), early, at_time(25), m);
  BOOST_TEST(p.error.find("binlog.000002") != std::string::npos, p.error);
}

BOOST_AUTO_TEST_CASE(stop_bound_checks) {
  const int64_t snap = unix_at(15) + 30;  // 10:15:30
  struct row {
    std::string what;
    stop_bound stop;
    std::string error_part;
  };
  stop_bound same_second;
  same_second.what = stop_bound::kind::datetime;
  same_second.unix_seconds = snap;
  stop_bound next_second = same_second;
  next_second.unix_seconds = snap + 1;
  std::vector<row> rows = {
      {"no bound", stop_bound{}, ""},
      {"before the backup", at_time(10), "--stop-datetime"},
      {"in the snapshot's second", same_second, "before the backup's consistent point"},
      {"the second after the snapshot", next_second, ""},
      {"later", at_time(20), ""},
      {"gtid bound holding the backup", at_gtids(A + ":1-20"), ""},
      {"gtid bound short of the backup", at_gtids(A + ":1-10"), "--stop-gtid"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.what) {
      auto e = check_stop_bound(r.stop, snap, gs(A + ":1-15"));
      if (r.error_part.empty()) BOOST_TEST(e == "");
      else BOOST_TEST(e.find(r.error_part) != std::string::npos, e);
    }
  }
}

BOOST_AUTO_TEST_CASE(binlog_names_sort_in_the_servers_order) {
  BOOST_TEST(binlog::parse_binlog_name("binlog.000123").value_or(binlog::binlog_name{}).number == 123u);
  BOOST_TEST(binlog::parse_binlog_name("mysql-bin.1000000").value_or(binlog::binlog_name{}).base == "mysql-bin");
  BOOST_TEST(!binlog::parse_binlog_name("binlog.index"));
  BOOST_TEST(!binlog::parse_binlog_name("binlog"));
  BOOST_TEST(!binlog::parse_binlog_name("binlog.12345678901"));
  BOOST_TEST(binlog::binlog_name_less("binlog.999999", "binlog.1000000"));  // text order says otherwise
  BOOST_TEST(!binlog::binlog_name_less("binlog.1000000", "binlog.999999"));
  BOOST_TEST(binlog::binlog_name_less("binlog.000002", "binlog.000010"));
  BOOST_TEST(!binlog::binlog_name_less("binlog.000002", "binlog.000002"));
}

BOOST_AUTO_TEST_CASE(history_starts_table) {
  struct row {
    std::string what;
    std::vector<binlog::manifest> m;
    std::vector<std::string> breaks;  // "site/file@minute<-previous" ("" = the site's first)
    std::string error_part;
  };
  auto brk = [](const history_start& b) {
    return b.site + "/" + b.file + "@" + std::to_string((b.unix_seconds - unix_at(0)) / 60) + "<-" + b.previous_file;
  };
  const std::vector<row> rows = {
      {"one history: its first file", one_site(), {"s1/binlog.000001@0<-"}, ""},
      {"a reset after a non-empty file", restored_site(),
       {"s1/binlog.000001@0<-", "s1/binlog.000003@25<-binlog.000002", "s1/binlog.000005@45<-binlog.000004"}, ""},
      {"an empty start after an empty file is no break (nothing was discarded)",
       {site("s1", {file("s1", "binlog.000001", "", "", 0, 1), file("s1", "binlog.000002", "", A + ":1-3", 2, 3)})},
       {"s1/binlog.000001@0<-"}, ""},
      {"order by index: binlog.1000000 follows binlog.999999",
       {site("s1", {file("s1", "binlog.999999", A + ":1-5", A + ":1-9", 0, 5),
                    file("s1", "binlog.1000000", "", A + ":10-12", 7, 9)})},
       {"s1/binlog.1000000@7<-binlog.999999"}, ""},
      {"a site's first archived file with a non-empty Previous_gtids is no start (retention deleted the older)",
       {site("s1", {file("s1", "binlog.000004", A + ":1-3", A + ":1-9", 0, 5)})}, {}, ""},
      {"per site: each first file starting empty, s2 after s1's reset, listed by time",
       {site("s2", {file("s2", "binlog.000001", "", B + ":1-4", 0, 4), file("s2", "binlog.000002", "", B + ":5-6", 12, 13)}),
        site("s1", {file("s1", "binlog.000007", A + ":1-3", A + ":1-9", 0, 10), file("s1", "binlog.000008", "", A + ":10", 11, 12)})},
       {"s2/binlog.000001@0<-", "s1/binlog.000008@11<-binlog.000007", "s2/binlog.000002@12<-binlog.000001"}, ""},
      {"an unreadable set is an error",
       {site("s1", {file("s1", "binlog.000001", "", "junk", 0, 1), file("s1", "binlog.000002", "", A + ":1", 2, 3)})},
       {}, "file binlog.000001 has an unreadable"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.what) {
      std::string error;
      auto found = find_history_starts(r.m, error);
      std::vector<std::string> got;
      for (const auto& b : found) got.push_back(brk(b));
      BOOST_TEST(got == r.breaks, boost::test_tools::per_element());
      if (r.error_part.empty()) BOOST_TEST(error == "");
      else BOOST_TEST(error.find(r.error_part) != std::string::npos, error);
    }
  }
}

// One row of the tables of plans across a history start: the plan from `backup` (snapshot at
// `snapshot`) to `stop` takes `files`, or is refused with `error_part` in its message.
struct history_row {
  std::string what;
  std::string backup;
  int64_t snapshot;
  stop_bound stop;
  std::vector<std::string> files;
  std::string error_part;  // "" = planned
};

void check_history_rows(const std::vector<history_row>& rows, const std::vector<binlog::manifest>& archive) {
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.what) {
      auto p = plan_replay(gs(r.backup), r.snapshot, r.stop, archive);
      if (r.error_part.empty()) {
        BOOST_TEST(p.error == "");
        BOOST_TEST(names(p) == r.files, boost::test_tools::per_element());
      } else {
        BOOST_TEST(p.error.find(r.error_part) != std::string::npos, p.error);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(plans_across_an_in_place_restore_table) {
  stop_bound latest;
  latest.what = stop_bound::kind::latest;
  using row = history_row;
  const std::string old_backup = A + ":1-5", new_backup = A + ":1-27";
  const std::vector<row> rows = {
      {"old backup, a point before the restore: the old history", old_backup, unix_at(5), at_time(15),
       {"s1/binlog.000001", "s1/binlog.000002"}, ""},
      {"old backup, stop at the old history's newest event: the old history", old_backup, unix_at(5), at_time(20),
       {"s1/binlog.000001", "s1/binlog.000002"}, ""},
      {"old backup, stop after the old history's newest event, before the reset: refused (its tail is not archived)",
       old_backup, unix_at(5), at_time(25), {},
       "is after the newest archived event of this backup's history (" + at(20) + " in s1/binlog.000002)"},
      {"old backup, a point after the restore: refused", old_backup, unix_at(5), at_time(26), {},
       "--stop-datetime " + at(26) + " lies past the start of another history: s1/binlog.000003 starts a new history at " +
           at(25) + " (after binlog.000002 ended with " + A + ":1-20: the site's binary logs were reset"},
      {"the refusal says what to do", old_backup, unix_at(5), at_time(35), {},
       "restore from a backup taken after " + at(25) + ", or stop at or before " + at(20)},
      {"old backup, latest: refused", old_backup, unix_at(5), latest, {}, "the newest archived point lies past"},
      {"old backup, a GTID bound inside the old history", old_backup, unix_at(5), at_gtids(A + ":1-18"),
       {"s1/binlog.000001", "s1/binlog.000002"}, ""},
      {"old backup, a GTID bound reaching the new history: refused", old_backup, unix_at(5), at_gtids(A + ":1-22"), {},
       "--stop-gtid lies past the start of another history"},
      {"a backup in the reset's second counts as before it", old_backup, unix_at(25), at_time(26), {},
       "starts a new history at " + at(25)},
      {"new backup: the new history only", new_backup, unix_at(32), at_time(40), {"s1/binlog.000004"}, ""},
      {"new backup, past the second restore: refused, naming it", new_backup, unix_at(32), at_time(46), {},
       "s1/binlog.000005 starts a new history at " + at(45) + " (after binlog.000004 ended with " + A + ":21-30"},
      {"a backup after both restores", A + ":1-33", unix_at(52), latest, {"s1/binlog.000006"}, ""},
  };
  check_history_rows(rows, restored_site());
}

// Review finding H1: s1 restored in place at minute 25 back to A:1-12 (A:13-20 discarded); its first
// post-reset file was never archived (MySQL failed over first) and s2, recloned from s1 after the
// restore, archives the new history in its own binlog.000001 (empty Previous_gtids, from minute 30).
std::vector<binlog::manifest> restored_then_failed_over() {
  return {site("s1", {file("s1", "binlog.000001", "", A + ":1-10", 0, 10),
                      file("s1", "binlog.000002", A + ":1-10", A + ":1-20", 10, 20)}),
          site("s2", {file("s2", "binlog.000001", "", A + ":21-25," + B + ":1-5", 30, 40),
                      file("s2", "binlog.000002", A + ":21-25," + B + ":1-5", A + ":21-25," + B + ":1-9", 40, 50)})};
}

BOOST_AUTO_TEST_CASE(a_new_history_on_another_site_is_never_taken_table) {
  stop_bound latest;
  latest.what = stop_bound::kind::latest;
  using row = history_row;
  const std::string old_backup = A + ":1-5";
  const std::vector<row> rows = {
      {"old backup, latest: refused, naming s2's first file", old_backup, unix_at(5), latest, {},
       "s2/binlog.000001 starts a new history"},
      {"old backup, a point after s2's start: refused", old_backup, unix_at(5), at_time(45), {},
       "restore from a backup taken after " + at(30)},
      {"old backup, a point between the old history's end and s2's start: refused (the reset is not seen)",
       old_backup, unix_at(5), at_time(28), {}, "newest archived event of this backup's history (" + at(20)},
      {"old backup, a GTID bound in the new history: refused", old_backup, unix_at(5), at_gtids(A + ":1-22"), {},
       "s2/binlog.000001 starts a new history"},
      {"old backup, a point inside the old history: planned", old_backup, unix_at(5), at_time(15),
       {"s1/binlog.000001", "s1/binlog.000002"}, ""},
      {"old backup, a GTID bound inside the old history: planned", old_backup, unix_at(5), at_gtids(A + ":1-18"),
       {"s1/binlog.000001", "s1/binlog.000002"}, ""},
      {"a backup taken on s2 after its start: s2's files", A + ":1-25," + B + ":1-2", unix_at(42), latest,
       {"s2/binlog.000001", "s2/binlog.000002"}, ""},
      {"a backup in the second s2 started counts as before it", old_backup, unix_at(30), latest, {},
       "s2/binlog.000001 starts a new history"},
  };
  check_history_rows(rows, restored_then_failed_over());
}

BOOST_AUTO_TEST_CASE(stop_datetime_parsing) {
  BOOST_TEST(parse_stop_datetime("2026-11-26T14:03:00Z").value_or(0) == 1795701780);
  BOOST_TEST(parse_stop_datetime("2026-11-26 14:03:00").value_or(0) == 1795701780);
  BOOST_TEST(parse_stop_datetime("2026-11-26T15:03:00+01:00").value_or(0) == 1795701780);
  BOOST_TEST(!parse_stop_datetime("2026-11-26T14:03:00.5Z"));
  BOOST_TEST(!parse_stop_datetime("yesterday"));
}

BOOST_AUTO_TEST_SUITE_END()
