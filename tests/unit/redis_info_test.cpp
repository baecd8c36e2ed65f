// INFO parsing (io/redis/info.hpp): Valkey's and Dragonfly's role spellings, CRLF lines, section
// headers, unparsable numbers kept unknown, the persistence section's loading flag.
#include <boost/test/unit_test.hpp>

#include "io/redis/info.hpp"

using namespace br;

BOOST_AUTO_TEST_SUITE(redis_info)

BOOST_AUTO_TEST_CASE(valkey_replica_with_persistence) {
  auto r = redis::parse_replication(
      "# Replication\r\nrole:slave\r\nmaster_host:10.0.0.5\r\nmaster_port:6380\r\nmaster_link_status:up\r\n"
      "master_last_io_seconds_ago:1\r\nmaster_sync_in_progress:0\r\nslave_repl_offset:4242\r\n"
      "master_repl_offset:4242\r\n\r\n# Persistence\r\nloading:1\r\n");
  BOOST_TEST((r.role == dragonfly::server_role::replica));
  BOOST_TEST(r.master_host == "10.0.0.5");
  BOOST_TEST(r.master_port == 6380);
  BOOST_TEST(r.link_up);
  BOOST_TEST(r.last_io_seconds_ago == 1);
  BOOST_TEST(!r.sync_in_progress);
  BOOST_TEST(r.replica_offset == 4242);
  BOOST_TEST(r.loading);
}

BOOST_AUTO_TEST_CASE(dragonfly_spellings_and_master) {
  auto rep = redis::parse_replication("role:replica\nmaster_link_status:down\nmaster_sync_in_progress:1\n");
  BOOST_TEST((rep.role == dragonfly::server_role::replica));
  BOOST_TEST(!rep.link_up);
  BOOST_TEST(rep.sync_in_progress);
  BOOST_TEST(rep.last_io_seconds_ago == -1);
  auto m = redis::parse_replication("role:master\nconnected_slaves:2\nslave0:ip=1.2.3.4,port=1,state=online\n"
                                    "master_repl_offset:77\n");
  BOOST_TEST((m.role == dragonfly::server_role::master));
  BOOST_TEST(m.connected_replicas == 2);
  BOOST_TEST(m.master_repl_offset == 77);
  BOOST_TEST(m.replica_offset == 77);
}

BOOST_AUTO_TEST_CASE(garbage_stays_unknown) {
  auto g = redis::parse_replication("role:sentinel\nconnected_slaves:two\nmaster_repl_offset:12x\n:x\nnocolon\n");
  BOOST_TEST((g.role == dragonfly::server_role::unknown));
  BOOST_TEST(g.connected_replicas == -1);
  BOOST_TEST(g.master_repl_offset == -1);
  BOOST_TEST(redis::parse_info("a:b:c\n").at("a") == "b:c");
  BOOST_TEST(redis::parse_replication("").connected_replicas == -1);
}

BOOST_AUTO_TEST_CASE(keyspace_counts_keys_or_stays_unknown) {
  BOOST_TEST(redis::parse_replication("role:master\n").keys == -1);  // section not read
  BOOST_TEST(redis::parse_replication("role:master\n# Keyspace\r\n").keys == 0);
  BOOST_TEST(redis::parse_replication("# Keyspace\r\ndb0:keys=3,expires=0,avg_ttl=0\r\ndb2:keys=4,expires=1\r\n").keys == 7);
  BOOST_TEST(redis::parse_replication("# Keyspace\r\ndb0:keys=x,expires=0\r\n").keys == -1);
}

BOOST_AUTO_TEST_SUITE_END()
