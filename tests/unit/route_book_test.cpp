// Standalone route file (actors/operator/local/route_book.hpp): a manually fenced site leaves the
// replicas route and comes back when unfenced; the route follows a settled status only.
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <iterator>
#include <tuple>

#include "actors/operator/local/route_book.hpp"
#include "tests/support/temp_dir.hpp"

using namespace br;
using nlohmann::json;

namespace {

config::site_status site(const std::string& name, site_state state, bool fenced = false) {
  config::site_status s;
  s.name = name;
  s.state = state;
  s.manually_fenced = fenced;
  return s;
}

config::group_status status(const std::string& active, std::vector<config::site_status> sites,
                            const std::string& deposing = "") {
  config::group_status s;
  s.active_site = active;
  s.deposing_site = deposing;
  s.sites = std::move(sites);
  return s;
}

json read(const br::test::temp_dir& d, const std::string& group) {
  std::ifstream in(d.path / (group + ".route.json"));
  if (!in) return nullptr;
  return json::parse(std::istreambuf_iterator<char>(in), {}, nullptr, false);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(route_book_rules)

BOOST_AUTO_TEST_CASE(group_replication_routes_from_the_agreed_view) {
  auto gr = [](bool known, const std::string& primary,
               std::vector<std::tuple<std::string, std::string, std::string>> members) {
    config::group_replication_status g;
    g.view_known = known;
    g.primary_member = primary;
    for (auto& [n, st, role] : members) g.members.push_back({n, "", st, role, true});
    return g;
  };
  auto st = status("a", {});
  st.group_replication = gr(true, "a",
                            {{"a", "ONLINE", "PRIMARY"}, {"b", "ONLINE", "SECONDARY"},
                             {"c", "RECOVERING", "SECONDARY"}});
  auto r = settled_route(st);
  BOOST_TEST_REQUIRE(r.has_value());
  BOOST_TEST(r->primary == "a");
  BOOST_TEST((r->replicas == std::vector<std::string>{"b"}));  // c is not ONLINE
  // The group elected b but the view has not followed yet: no primary until it has.
  st.group_replication = gr(true, "b", {{"b", "ONLINE", "PRIMARY"}, {"c", "ONLINE", "SECONDARY"}});
  r = settled_route(st);
  BOOST_TEST_REQUIRE(r.has_value());
  BOOST_TEST(r->primary.empty());
  // Unknown view: nothing changes.
  st.group_replication = gr(false, "", {});
  BOOST_TEST(!settled_route(st).has_value());
}

BOOST_AUTO_TEST_CASE(the_file_leaves_out_fenced_replicas) {
  BOOST_TEST(route_file_content("a", {"b", "c"}, {}).dump() ==
             R"({"fenced":[],"primary":"a","replicas":["b","c"]})");
  BOOST_TEST(route_file_content("a", {"b", "c"}, {"b"}).dump() ==
             R"({"fenced":["b"],"primary":"a","replicas":["c"]})");
}

BOOST_AUTO_TEST_CASE(a_route_only_from_a_settled_status) {
  using S = site_state;
  struct row {
    const char* what;
    config::group_status st;
    std::optional<std::string> primary;
  };
  const std::vector<row> rows = {
      {"settled", status("a", {site("a", S::writable), site("b", S::read_only)}), "a"},
      {"no active site", status("", {site("a", S::writable), site("b", S::read_only)}), std::nullopt},
      {"deposing", status("a", {site("a", S::writable), site("b", S::read_only)}, "a"), std::nullopt},
      {"active not writable", status("a", {site("a", S::read_only), site("b", S::read_only)}), std::nullopt},
  };
  for (const auto& r : rows) {
    auto got = settled_route(r.st);
    BOOST_TEST(got.has_value() == r.primary.has_value(), r.what);
    if (got && r.primary) BOOST_TEST(got->primary == *r.primary, r.what);
  }
  auto full = settled_route(status("b", {site("a", S::read_only), site("b", S::writable),
                                         site("c", S::unreachable)}));
  BOOST_REQUIRE(full.has_value());
  BOOST_TEST(full->replicas == (std::vector<std::string>{"a", "c"}));
}

BOOST_AUTO_TEST_CASE(the_file_follows_a_fence_and_an_unfence) {
  using S = site_state;
  br::test::temp_dir d("br-route-book");
  route_book book(d.path.string());
  // nothing known yet, not settled: no file
  book.follow("g", status("", {site("a", S::read_only), site("b", S::read_only)}));
  BOOST_TEST(read(d, "g").is_null());
  // adopted without a plan: the settled status writes the route
  book.follow("g", status("a", {site("a", S::writable), site("b", S::read_only), site("c", S::read_only)}));
  BOOST_TEST(read(d, "g")["replicas"] == json({"b", "c"}));
  // b fenced by hand: out of the replicas
  book.follow("g", status("a", {site("a", S::writable), site("b", S::read_only, true), site("c", S::read_only)}));
  BOOST_TEST(read(d, "g")["replicas"] == json({"c"}));
  BOOST_TEST(read(d, "g")["fenced"] == json({"b"}));
  // a plan deposes a and steers to c; b still fenced during it
  book.follow("g", status("", {site("a", S::read_only), site("b", S::read_only, true), site("c", S::read_only)}, "a"));
  BOOST_TEST(book.steer("g", "c", {"a", "b"}));
  BOOST_TEST(read(d, "g")["primary"] == "c");
  BOOST_TEST(read(d, "g")["replicas"] == json({"a"}));
  // unfenced: b comes back
  book.follow("g", status("c", {site("a", S::read_only), site("b", S::read_only), site("c", S::writable)}));
  BOOST_TEST(read(d, "g")["replicas"] == json({"a", "b"}));
  BOOST_TEST(read(d, "g")["fenced"] == json::array());
}

BOOST_AUTO_TEST_SUITE_END()
