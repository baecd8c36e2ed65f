// Table tests for semisync_gate() (docs/safety.md "Semi-synchronous replication"): rule 4 (the old
// primary cannot acknowledge) and the no-loss candidate, with the N - K + 1 boundary on both sides.
#include "actors/operator/decide/semisync_gate.hpp"

#include <boost/test/unit_test.hpp>

#include <functional>

#include "actors/operator/decide/promotion_gate.hpp"

namespace {

using namespace br;

const std::string u = "3e11fa47-71ca-11e1-9e33-c80aa9429562";

gtid_set upto(uint64_t n) {
  gtid_set s;
  if (n > 0) s.add(u, "", 1, n);
  return s;
}

// One fact per letter code: r = reached, s = receiver stopped, i = in step; the number is how
// many of the old primary's transactions it received ("-" = not reached at all).
struct fact_spec {
  std::string site;
  std::string flags;
  uint64_t received;
};

semisync_gate_input make(uint32_t k, std::vector<fact_spec> facts,
                         std::vector<std::string> eligible = {}) {
  semisync_gate_input in;
  in.enabled = true;
  in.old_primary_confirmed = true;
  in.wait_for_replica_count = k;
  for (auto& f : facts) {
    semisync_site_fact x;
    x.site = f.site;
    x.reached = f.flags.find('r') != std::string::npos;
    x.receiver_stopped = f.flags.find('s') != std::string::npos;
    x.in_step = f.flags.find('i') != std::string::npos;
    if (x.reached) x.received = upto(f.received);
    in.others.push_back(x);
    if (eligible.empty()) in.eligible.push_back(f.site);
  }
  if (!eligible.empty()) in.eligible = eligible;
  return in;
}

struct row {
  const char* name;
  semisync_gate_input in;
  bool cannot_ack;
  std::string candidate;
};

BOOST_AUTO_TEST_SUITE(decisions_semisync_gate)

BOOST_AUTO_TEST_CASE(quorum_is_n_minus_k_plus_one) {
  BOOST_TEST(semisync_quorum(2, 1) == 2u);
  BOOST_TEST(semisync_quorum(2, 2) == 1u);
  BOOST_TEST(semisync_quorum(4, 2) == 3u);
  BOOST_TEST(semisync_quorum(2, 0) == 0u);  // K = 0: asynchronous, never rule 4
  BOOST_TEST(semisync_quorum(2, 3) == 0u);  // K > N: the primary could never commit
}

BOOST_AUTO_TEST_CASE(table) {
  std::vector<row> rows = {
      // Three sites (old primary a; b, c), K = 1: both others must be stopped and in step.
      {"k1 both stopped, b ahead", make(1, {{"b", "rsi", 7}, {"c", "rsi", 5}}), true, "b"},
      {"k1 both stopped, c ahead: c even if b is preferred",
       make(1, {{"b", "rsi", 5}, {"c", "rsi", 7}}), true, "c"},
      {"k1 equal sets: preference order", make(1, {{"b", "rsi", 7}, {"c", "rsi", 7}}), true, "b"},
      {"k1 one too few stopped (c unreached)", make(1, {{"b", "rsi", 7}, {"c", "-", 0}}), false,
       ""},
      {"k1 c reached but still receiving: no rule 4, not counted, no candidate",
       make(1, {{"b", "rsi", 7}, {"c", "ri", 7}}), false, ""},
      {"k1 c restarted (not in step): no candidate, cannot ack still holds",
       make(1, {{"b", "rsi", 7}, {"c", "rs", 3}}), true, ""},
      {"k1 the ahead site is not eligible", make(1, {{"b", "rsi", 5}, {"c", "rsi", 7}}, {"b"}),
       true, ""},
      {"k2 an eligible site not in step but holding the union is fine",
       make(2, {{"b", "rsi", 7}, {"c", "rsi", 5}, {"d", "rs", 9}}, {"d"}), true, "d"},
      {"k2 ... but not when it lacks part of the union",
       make(2, {{"b", "rsi", 7}, {"c", "rsi", 5}, {"d", "rs", 6}}, {"d"}), true, ""},
      // Four sites (a; b, c, d), K = 2: N - K + 1 = 2 of 3.
      {"k2 two of three stopped and in step", make(2, {{"b", "rsi", 6}, {"c", "rsi", 7}, {"d", "-", 0}}),
       true, "c"},
      {"k2 one of three", make(2, {{"b", "rsi", 6}, {"c", "ri", 7}, {"d", "-", 0}}), false, ""},
      {"k2 two stopped, one of them restarted",
       make(2, {{"b", "rsi", 6}, {"c", "rs", 2}, {"d", "ri", 9}}), true, ""},
      {"k2 d still receives: not counted (8-9 had one receiver), c holds b and c",
       make(2, {{"b", "rsi", 6}, {"c", "rsi", 7}, {"d", "ri", 9}}), true, "c"},
      // Review V4's counterexample: a stopped site not in step (a) holds 10, which a site still
      // receiving (d) can get after its probe; a and d acknowledge 10 (K = 2). Counting d would
      // let b (1-9) be the candidate; counting only stopped in-step sites needs 2 of them and
      // finds only b.
      {"k2 a site still receiving never makes up the count",
       make(2, {{"a", "rs", 10}, {"b", "rsi", 9}, {"d", "ri", 9}}, {"b", "a"}), true, ""},
      {"k2 ... once d is stopped it is the candidate",
       make(2, {{"b", "rsi", 6}, {"c", "rsi", 7}, {"d", "rsi", 9}}), true, "d"},
  };
  for (auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto got = semisync_gate(r.in);
      BOOST_TEST(got.cannot_ack == r.cannot_ack);
      BOOST_TEST(got.candidate == r.candidate);
      BOOST_TEST(!got.reason.empty());
    }
  }
}

BOOST_AUTO_TEST_CASE(union_of_incomparable_sets_needs_a_holder_of_both) {
  // b and c received different transactions (b: 1-5 and 7, c: 1-6): the candidate must hold the
  // union; nobody does, so nobody is chosen.
  auto in = make(1, {{"b", "rsi", 5}, {"c", "rsi", 6}});
  in.others[0].received->add(u, "", 7, 7);
  BOOST_TEST(semisync_gate(in).candidate.empty());
  in.others[0].received->add(u, "", 6, 6);  // b now holds 1-7 = the union
  BOOST_TEST(semisync_gate(in).candidate == "b");
}

BOOST_AUTO_TEST_CASE(off_misconfigured_or_unconfirmed_never_open) {
  auto in = make(1, {{"b", "rsi", 7}, {"c", "rsi", 5}});
  auto off = in;
  off.enabled = false;
  auto k0 = in;
  k0.wait_for_replica_count = 0;
  auto k3 = in;
  k3.wait_for_replica_count = 3;
  auto unconfirmed = in;
  unconfirmed.old_primary_confirmed = false;
  for (auto* c : {&off, &k0, &k3, &unconfirmed}) {
    auto got = semisync_gate(*c);
    BOOST_TEST(!got.cannot_ack);
    BOOST_TEST(got.candidate.empty());
    BOOST_TEST(!got.reason.empty());
  }
  BOOST_TEST(semisync_gate(in).cannot_ack);
}

BOOST_AUTO_TEST_CASE(rule4_opens_the_promotion_gate) {
  gate_input g;
  g.other_sites = {"b", "c"};
  g.started = g.now = mono_time{} + std::chrono::hours(1);
  g.lease_timeout = std::chrono::seconds(20);
  g.gate_timeout = std::chrono::seconds(120);
  BOOST_TEST((promotion_gate(g).verdict == gate_verdict::wait));
  g.semisync_cannot_ack = true;
  auto d = promotion_gate(g);
  BOOST_TEST((d.verdict == gate_verdict::open));
  BOOST_TEST((d.rule == gate_rule::semisync_stopped));
}

BOOST_AUTO_TEST_CASE(source_confirmed_table) {
  constexpr uint64_t max = 4294967295ULL;
  site_semisync ok;
  ok.source_loaded = ok.source_enabled = ok.source_on = ok.wait_no_replica = true;
  ok.wait_point = "AFTER_SYNC";
  ok.wait_count = 1;
  ok.timeout_ms = max;
  ok.clients = 2;
  struct row {
    const char* name;
    std::function<void(site_semisync&)> change;
    bool expect;
  };
  std::vector<row> rows = {
      {"as rendered", [](site_semisync&) {}, true},
      {"plugin not loaded", [](site_semisync& s) { s.source_loaded = false; }, false},
      {"source side off", [](site_semisync& s) { s.source_enabled = false; }, false},
      {"fallen back now", [](site_semisync& s) { s.source_on = false; }, false},
      {"fell back once since start", [](site_semisync& s) { s.no_tx = 1; }, false},
      {"AFTER_COMMIT", [](site_semisync& s) { s.wait_point = "AFTER_COMMIT"; }, false},
      {"wait_no_replica off", [](site_semisync& s) { s.wait_no_replica = false; }, false},
      {"finite timeout", [](site_semisync& s) { s.timeout_ms = 10000; }, false},
      {"another K", [](site_semisync& s) { s.wait_count = 2; }, false},
      {"more receivers than other sites", [](site_semisync& s) { s.clients = 3; }, false},
      {"fewer receivers (blocked, still confirmed)", [](site_semisync& s) { s.clients = 0; },
       true},
  };
  for (auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto s = ok;
      r.change(s);
      std::string why;
      BOOST_TEST(semisync_source_confirmed(s, 1, 2, max, &why) == r.expect);
      BOOST_TEST(why.empty() == r.expect);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
