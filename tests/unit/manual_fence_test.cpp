// Table tests for the manual fence decision (decide/manual_fence): the annotation's set, one-site
// requests, and every refusal with its one-line reason.
#include "actors/operator/decide/manual_fence.hpp"

#include <boost/test/unit_test.hpp>

namespace {

using namespace br;

// iad active, pdx and sfo candidates, ro a read-only site.
manual_fence_facts facts(std::set<std::string> fenced = {}, std::string active = "iad",
                         bool plan = false) {
  manual_fence_facts f;
  f.sites = {"iad", "pdx", "sfo", "ro"};
  f.roles = {{"ro", site_role::read_only}};
  f.active_site = std::move(active);
  f.plan_running = plan;
  f.fenced = std::move(fenced);
  return f;
}

struct row {
  const char* name;
  manual_fence_facts f;
  std::string value;
  bool accepted;
  std::set<std::string> next;
  std::string reason_has;
};

BOOST_AUTO_TEST_SUITE(decisions_manual_fence)

BOOST_AUTO_TEST_CASE(annotation_set) {
  const std::vector<row> rows = {
      {"one replica", facts(), "pdx", true, {"pdx"}, "fenced: pdx"},
      {"spaces and a read-only site", facts(), " pdx , ro ", true, {"pdx", "ro"}, "fenced: pdx, ro"},
      {"empty value unfences all", facts({"pdx"}), "", true, {}, "unfenced: pdx"},
      {"unchanged", facts({"pdx"}), "pdx", true, {"pdx"}, "unchanged"},
      {"swap", facts({"pdx"}), "sfo", true, {"sfo"}, "fenced: sfo; unfenced: pdx"},
      {"active primary", facts(), "iad", false, {}, "iad is the active primary"},
      {"active primary among others", facts({"pdx"}), "pdx,iad", false, {"pdx"},
       "iad is the active primary"},
      {"unknown site", facts(), "pdx,nyc", false, {}, "unknown site nyc"},
      {"empty entry", facts(), "pdx,,sfo", false, {}, "empty site name"},
      {"trailing comma", facts(), "pdx,", false, {}, "empty site name"},
      {"every candidate", facts(), "pdx,sfo", false, {}, "would leave no failover candidate"},
      {"last candidate", facts({"pdx"}), "pdx,sfo", false, {"pdx"},
       "would leave no failover candidate"},
      {"plan running", facts({}, "iad", true), "pdx", false, {}, "a plan is running"},
      {"no primary yet: fence waits", facts({}, ""), "pdx", false, {}, "no active primary"},
      {"no primary: unfence allowed", facts({"pdx"}, ""), "", true, {}, "unfenced: pdx"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto v = check_fenced_set(r.f, r.value);
      BOOST_TEST(v.accepted == r.accepted);
      BOOST_TEST((v.next == r.next));
      BOOST_TEST(v.reason.find(r.reason_has) != std::string::npos, v.reason);
      BOOST_TEST(v.reason.find('\n') == std::string::npos);
    }
  }
}

// A state that already has no candidate left (pdx, sfo fenced before a site was declared
// read-only, say): fencing the read-only site changes no candidate and is accepted.
BOOST_AUTO_TEST_CASE(read_only_site_when_no_candidate_is_left) {
  auto f = facts({"pdx", "sfo"});
  auto v = check_fenced_set(f, "pdx,sfo,ro");
  BOOST_TEST(v.accepted, v.reason);
  BOOST_TEST((v.next == std::set<std::string>{"pdx", "ro", "sfo"}));
}

BOOST_AUTO_TEST_CASE(one_site_requests) {
  struct req {
    const char* name;
    manual_fence_facts f;
    std::string site;
    bool on;
    bool accepted;
    std::set<std::string> next;
    std::string reason_has;
  };
  const std::vector<req> rows = {
      {"fence a replica", facts(), "pdx", true, true, {"pdx"}, "fenced: pdx"},
      {"fence again", facts({"pdx"}), "pdx", true, true, {"pdx"}, "unchanged"},
      {"unfence", facts({"pdx"}), "pdx", false, true, {}, "unfenced: pdx"},
      {"unfence a site not fenced", facts(), "sfo", false, true, {}, "unchanged"},
      {"fence the primary", facts(), "iad", true, false, {}, "iad is the active primary"},
      {"fence the last candidate", facts({"sfo"}), "pdx", true, false, {"sfo"},
       "would leave no failover candidate"},
      {"fence unknown", facts(), "nyc", true, false, {}, "unknown site nyc"},
      {"unfence unknown", facts(), "nyc", false, false, {}, "unknown site nyc"},
      {"no site", facts(), "", true, false, {}, "no site named"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto v = check_fence_request(r.f, r.site, r.on);
      BOOST_TEST(v.accepted == r.accepted);
      BOOST_TEST((v.next == r.next));
      BOOST_TEST(v.reason.find(r.reason_has) != std::string::npos, v.reason);
    }
  }
}

BOOST_AUTO_TEST_CASE(request_values_and_roles) {
  std::string site;
  bool on = false;
  BOOST_TEST(parse_fence_request("on:pdx", site, on));
  BOOST_TEST(site == "pdx");
  BOOST_TEST(on);
  BOOST_TEST(parse_fence_request("off: sfo", site, on));
  BOOST_TEST(site == "sfo");
  BOOST_TEST(!on);
  BOOST_TEST(!parse_fence_request("pdx", site, on));
  BOOST_TEST(!parse_fence_request("maybe:pdx", site, on));
  BOOST_TEST(!parse_fence_request("on:", site, on));
  auto roles = effective_roles({{"ro", site_role::read_only}}, {"pdx"});
  BOOST_TEST((roles.at("pdx") == site_role::read_only));
  BOOST_TEST((roles.at("ro") == site_role::read_only));
  BOOST_TEST(roles.count("iad") == 0u);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
