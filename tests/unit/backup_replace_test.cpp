// `restore --replace` (spec.restoreInPlace's Job): which live targets are refused, with what
// message, and which schemas a replace drops (never MySQL's own nor the operator's).
#include <boost/test/unit_test.hpp>

#include "io/backup/replace_target.hpp"

using namespace br::backup;

BOOST_AUTO_TEST_SUITE(backup_replace)

BOOST_AUTO_TEST_CASE(replace_refusal_table) {
  struct row {
    std::string what;
    replace_facts f;
    std::string expect;  ///< "" = accepted, else a piece of the message
  };
  const replace_facts fenced{"ON", true, true, 0, {}};
  auto with = [&](auto change) {
    auto f = fenced;
    change(f);
    return f;
  };
  const std::vector<row> rows = {
      {"fenced, alone, gtid ON", fenced, ""},
      {"super_read_only without read_only is still fenced", with([](replace_facts& f) { f.read_only = false; }), ""},
      {"writable", with([](replace_facts& f) { f.super_read_only = false; f.read_only = false; }),
       "is writable (super_read_only is OFF)"},
      {"read_only only (SUPER users still write)", with([](replace_facts& f) { f.super_read_only = false; }),
       "is writable (super_read_only is OFF, read_only ON)"},
      {"a replica attached", with([](replace_facts& f) { f.replicas_attached = 1; }), "still has 1 replica(s) attached"},
      {"two replicas, also writable: replicas named first", with([](replace_facts& f) { f.replicas_attached = 2; f.super_read_only = false; }),
       "still has 2 replica(s) attached"},
      {"replicating from someone", with([](replace_facts& f) { f.channels = {""}; }), "is a replica (channel (default) is not OFF)"},
      {"two named channels", with([](replace_facts& f) { f.channels = {"a", "b"}; }), "channel a, b is not OFF"},
      {"gtid_mode OFF", with([](replace_facts& f) { f.gtid_mode = "OFF"; }), "has gtid_mode OFF"},
      {"gtid_mode unread", with([](replace_facts& f) { f.gtid_mode = ""; }), "has gtid_mode NULL"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.what) {
      auto e = replace_refusal(r.f, "db:3306");
      if (r.expect.empty()) {
        BOOST_TEST(e == "");
      } else {
        BOOST_TEST(e.find(r.expect) != std::string::npos, e);
        BOOST_TEST(e.find("the target db:3306") == 0u, e);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(schemas_to_drop_keeps_system_and_operator_schemas) {
  const std::vector<std::string> all = {"appdb", "bloodraven", "information_schema", "mysql", "performance_schema",
                                        "shop", "sys", "Sys2", "MySQL", "a`b"};
  const std::vector<std::string> expect = {"appdb", "shop", "Sys2", "a`b"};
  BOOST_TEST(schemas_to_drop(all) == expect, boost::test_tools::per_element());
  BOOST_TEST(schemas_to_drop({}).empty());
}

BOOST_AUTO_TEST_CASE(identifiers_are_quoted) {
  BOOST_TEST(quote_identifier("appdb") == "`appdb`");
  BOOST_TEST(quote_identifier("a`b") == "`a``b`");
  BOOST_TEST(quote_identifier("") == "``");
}

BOOST_AUTO_TEST_SUITE_END()
