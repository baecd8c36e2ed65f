// Bootstrap and auto-clone rules (see bootstrap.hpp; docs/safety.md "Bootstrap and auto-clone").
#include "actors/operator/decide/bootstrap.hpp"

#include <algorithm>
#include <cctype>

#include "actors/operator/decide/recovery.hpp"
#include "messages/gtid_set.hpp"

namespace br {

namespace {

std::string names(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& n : v) out += (out.empty() ? "" : ", ") + n;
  return out;
}

bootstrap_decision make(bootstrap_verdict v, std::string reason, std::string seed = "") {
  bootstrap_decision d;
  d.verdict = v;
  d.reason = std::move(reason);
  d.seed = std::move(seed);
  return d;
}

std::string trim(std::string s) {
  auto sp = [](unsigned char ch) { return std::isspace(ch) != 0; };
  while (!s.empty() && sp(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && sp(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

std::string upper(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

}  // namespace

std::string to_string(bootstrap_verdict v) {
  switch (v) {
    case bootstrap_verdict::not_new: return "not_new";
    case bootstrap_verdict::wait: return "wait";
    case bootstrap_verdict::refuse: return "refuse";
    case bootstrap_verdict::bootstrap: return "bootstrap";
  }
  return "not_new";
}

bool restore_holds(const durable_state& d, const std::string& hold) {
  return !hold.empty() && never_had_primary(d);
}

bool never_had_primary(const durable_state& d) {
  if (!d.view.active_site.empty() || !d.view.deposing.empty()) return false;
  if (!d.last_failover_target.empty()) return false;
  if (d.bootstrap.source == "fresh-deploy" && d.bootstrap.sites.size() > 0) {
    for (const auto& s : d.bootstrap.sites)
      if (s.action == "seed" && s.phase == "Done") return false;
  }
  return true;
}

bootstrap_decision decide_bootstrap(const bootstrap_facts& in) {
  if (!never_had_primary(in.durable))
    return make(bootstrap_verdict::not_new, "the group had an active site");
  // A writable site is adopted (or fenced) by the ordinary rules; a wired channel means somebody
  // built this group already: the ordinary rules (adopt, failover, recovery) apply to it.
  for (const auto& s : in.sites) {
    if (s.writable) return make(bootstrap_verdict::not_new, s.name + " is writable");
    if (s.channel)
      return make(bootstrap_verdict::not_new, s.name + " already has a replication channel");
  }
  const bootstrap_site_facts* seed = nullptr;
  for (const auto& s : in.sites)
    if (s.name == in.seed) seed = &s;
  if (!seed) return make(bootstrap_verdict::refuse, "seed site '" + in.seed + "' is not a site");
  if (seed->role != site_role::primary_candidate)
    return make(bootstrap_verdict::refuse, "seed site " + in.seed + " is not a primary candidate");
  // Every site answers first: a site nobody can see might hold the data the user cares about,
  // or be writable (S1).
  std::vector<std::string> waiting;
  for (const auto& s : in.sites)
    if (!s.reported || !s.reachable) waiting.push_back(s.name);
  if (!waiting.empty())
    return make(bootstrap_verdict::wait, "waiting for " + names(waiting) + " to answer",
                in.seed);
  auto seed_set = gtid_set::parse(seed->gtid_executed);
  if (!seed_set)
    return make(bootstrap_verdict::wait, "gtid_executed of " + in.seed + " does not parse",
                in.seed);
  bootstrap_decision d = make(bootstrap_verdict::bootstrap, "", in.seed);
  std::vector<std::string> divergent;
  for (const auto& s : in.sites) {
    if (s.name == in.seed) continue;
    auto set = gtid_set::parse(s.gtid_executed);
    if (!set)
      return make(bootstrap_verdict::wait, "gtid_executed of " + s.name + " does not parse",
                  in.seed);
    bootstrap_action a;
    a.site = s.name;
    if (set->empty()) {
      a.action = seed_set->empty() ? "replicate" : "clone";
      a.reason = seed_set->empty() ? "empty, like the seed" : "empty";
    } else if (set->subset_of(*seed_set)) {
      // Subset, not superset (audit H16): everything it has, the seed has too. Whether the
      // seed's binlogs still hold the rest is checked when it is brought in (clone_need).
      a.action = "replicate";
      a.reason = "holds " + std::to_string(set->count()) + " of the seed's transactions";
    } else if (seed_set->empty() || seed_set->subset_of(*set)) {
      // The seed lacks transactions this site has and has none of its own: the seed is the
      // wrong choice, and bootstrapping from it would leave the data here behind.
      return make(bootstrap_verdict::refuse,
                  s.name + " holds every transaction of the seed " + in.seed + " and " +
                      std::to_string(set->subtract(*seed_set).count()) +
                      " more: set spec.bootstrap.seedSite to " + s.name +
                      ", or empty " + s.name + " first",
                  in.seed);
    } else {
      auto more = set->subtract(*seed_set);
      a.action = "divergent";
      a.divergent_gtid = more.to_string();
      a.divergent_count = more.count();
      a.reason = "holds " + std::to_string(more.count()) + " transactions the seed " + in.seed +
                 " lacks (" + more.to_compact_string() + "): never cloned; reclone it explicitly";
      divergent.push_back(s.name);
    }
    d.sites.push_back(std::move(a));
  }
  if (divergent.size() > 1)
    return make(bootstrap_verdict::refuse,
                "more than one site holds transactions the seed " + in.seed + " lacks (" +
                    names(divergent) + "): the operator will not choose whose data survives",
                in.seed);
  d.reason = "seed " + in.seed;
  return d;
}

clone_need_result clone_need(const std::string& recipient, const std::string& donor_executed,
                             const std::string& donor_purged, const std::string& recipient_tables) {
  auto r = gtid_set::parse(recipient);
  auto e = gtid_set::parse(donor_executed);
  auto p = gtid_set::parse(donor_purged);
  if (!r || !e || !p) return {clone_verdict::unknown, "a GTID set does not parse"};
  if (!r->subset_of(*e)) {
    auto more = r->subtract(*e);
    return {clone_verdict::divergent, "holds " + std::to_string(more.count()) +
                                          " transactions the donor lacks (" +
                                          more.to_compact_string() + ")"};
  }
  if (r->empty() && !recipient_tables.empty())
    return {clone_verdict::divergent, "holds tables (" + recipient_tables +
                                          ") but no GTIDs: data written without them"};
  if (r->empty() && !e->empty()) return {clone_verdict::clone, "empty"};
  if (!p->subset_of(*r))
    return {clone_verdict::clone, "the donor purged " +
                                      std::to_string(p->subtract(*r).count()) +
                                      " transactions it lacks"};
  return {clone_verdict::replicate, r->empty() ? "empty, like the donor"
                                               : "a subset of the donor's set"};
}

namespace {
constexpr std::string_view restore_discard_prefix = "restore=";
}

std::string restore_discard(const std::string& token) {
  return std::string(restore_discard_prefix) + token;
}

reclone_check_result reclone_check(const std::string& recipient, const std::string& donor_executed,
                                   const std::string& confirmed) {
  reclone_check_result out;
  gtid_parse_error pe;
  auto r = gtid_set::parse(recipient, &pe);
  auto e = gtid_set::parse(donor_executed);
  const bool by_restore = confirmed.rfind(restore_discard_prefix, 0) == 0 &&
                          confirmed.size() > restore_discard_prefix.size();
  auto ok = gtid_set::parse(by_restore ? std::string() : confirmed);
  if (!r || !e || !ok) {
    out.reason = "a GTID set does not parse" + (r ? std::string() : " (" + pe.to_string() + ")");
    return out;
  }
  auto extra = r->subtract(*e);
  out.discarded = extra.to_string();
  out.discarded_count = extra.count();
  if (by_restore || extra.subset_of(*ok)) {
    out.allowed = true;
    return out;
  }
  auto unconfirmed = extra.subtract(*ok);
  out.reason = "holds " + std::to_string(unconfirmed.count()) +
               " transactions the donor lacks that the request did not confirm (" +
               unconfirmed.to_compact_string() + ")";
  return out;
}

std::optional<std::string> pick_auto_clone(const auto_clone_facts& in) {
  if (in.active.empty()) return std::nullopt;
  const bootstrap_site_facts* active = nullptr;
  for (const auto& s : in.sites)
    if (s.name == in.active) active = &s;
  if (!active || !active->reachable) return std::nullopt;
  auto aset = gtid_set::parse(active->gtid_executed);
  if (!aset || aset->empty()) return std::nullopt;  // nothing to clone
  for (const auto& s : in.sites) {
    if (s.name == in.active || !s.reported || !s.reachable || s.writable || s.channel) continue;
    // Recover/reclone's business, except a RecoveryPending site that came back EMPTY (its volume
    // lost while it waited to rejoin): it holds nothing to lose, and replicating the donor's whole
    // history onto a freshly initialised server is not a rejoin (the init's own schema conflicts).
    if (auto r = in.recovery.find(s.name); r != in.recovery.end() && !r->second.state.empty() &&
                                          r->second.state != recovery_state_pending)
      continue;
    if (auto t = in.not_before_ms.find(s.name); t != in.not_before_ms.end() && in.now_ms < t->second)
      continue;
    if (auto t = in.settled_ms.find(s.name); t != in.settled_ms.end() && s.polled_ms <= t->second)
      continue;  // its report predates its last plan's end: wait for a fresh poll
    auto set = gtid_set::parse(s.gtid_executed);
    if (!set || !set->empty()) continue;  // a site with data is never auto-cloned
    return s.name;
  }
  return std::nullopt;
}

int64_t auto_clone_backoff_ms(int64_t base_ms, uint32_t failures) {
  if (failures == 0) return 0;
  uint32_t shift = std::min<uint32_t>(failures - 1, 4);
  return base_ms * (int64_t{1} << shift);
}

std::vector<std::string> missing_privileges(const std::vector<std::string>& grants,
                                            const std::vector<std::string>& required) {
  std::set<std::string> have;
  bool all = false;
  for (const auto& line : grants) {
    auto u = upper(line);
    if (u.rfind("GRANT ", 0) != 0) continue;
    auto on = u.find(" ON ");
    if (on == std::string::npos) continue;
    auto rest = trim(u.substr(on + 4));
    if (rest.rfind("*.*", 0) != 0) continue;  // only global grants count
    auto list = u.substr(6, on - 6);
    size_t from = 0;
    while (from <= list.size()) {
      auto comma = list.find(',', from);
      auto p = trim(list.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
      if (p == "ALL" || p == "ALL PRIVILEGES") all = true;
      if (!p.empty()) have.insert(p);
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
  }
  std::vector<std::string> missing;
  if (all) return missing;
  for (const auto& r : required)
    if (!have.count(upper(r))) missing.push_back(r);
  return missing;
}

const std::vector<std::string>& operator_account_privileges() {
  // PROCESS: information_schema.INNODB_TABLES (read_user_tables, the auto-clone check for data
  // without GTIDs) answers 1227 without it. (On MySQL 9.7 the session lists of
  // performance_schema.threads do not need it.)
  static const std::vector<std::string> v{"SYSTEM_VARIABLES_ADMIN", "CONNECTION_ADMIN",
                                          "REPLICATION_SLAVE_ADMIN", "REPLICATION CLIENT",
                                          "CLONE_ADMIN", "PROCESS"};
  return v;
}

const std::vector<std::string>& replication_account_privileges() {
  static const std::vector<std::string> v{"REPLICATION SLAVE", "BACKUP_ADMIN"};
  return v;
}

}  // namespace br
