// operator_secret_copy / copy_write: what the operator keeps in its own namespace per group.
#include <boost/test/unit_test.hpp>

#include "actors/operator/kube/core/generated_credentials.hpp"
#include "actors/operator/kube/core/kube_credentials.hpp"

using namespace br;
using nlohmann::json;

namespace {

config::failover_group group() {
  config::failover_group g;
  g.metadata.name = "orders";
  g.metadata.namespace_name = "shop";
  g.metadata.uid = "u1";
  g.spec.credentials = config::credentials_spec{};
  g.spec.credentials->operator_secret = "orders-operator";
  return g;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(credential_copy)

BOOST_AUTO_TEST_CASE(a_generated_secret_is_copied_without_owner_and_labelled_with_its_group) {
  auto g = group();
  auto source = generated_operator_secret(g, [](size_t n) { return std::string(n, 'x'); });
  source["metadata"]["resourceVersion"] = "7";
  auto copy = operator_secret_copy(g, source, "bloodraven-system");
  BOOST_REQUIRE(copy.has_value());
  BOOST_TEST((*copy)["metadata"]["name"] == "mysql-shop.orders-operator");
  BOOST_TEST((*copy)["metadata"]["namespace"] == "bloodraven-system");
  BOOST_TEST(!(*copy)["metadata"].contains("ownerReferences"));
  BOOST_TEST(!(*copy)["metadata"].contains("resourceVersion"));
  BOOST_TEST((*copy)["metadata"]["labels"]["shipstream.io/failover-group"] == "orders");
  BOOST_TEST((*copy)["metadata"]["labels"]["shipstream.io/failover-group-namespace"] == "shop");
  BOOST_TEST((*copy)["type"] == "Opaque");
}

// Review finding 11: the copy holds what the operator uses, nothing else. One row per key of
// the generated Secret: copied (same bytes) or left out.
BOOST_AUTO_TEST_CASE(the_copy_holds_only_the_operator_and_replication_accounts) {
  auto g = group();
  auto source = generated_operator_secret(g, [](size_t n) { return std::string(n, 'x'); });
  source["data"]["someone-elses-key"] = "eA==";
  auto copy = operator_secret_copy(g, source, "ops");
  BOOST_REQUIRE(copy.has_value());
  const std::vector<std::pair<std::string, bool>> rows{
      {"username", true},
      {"password", true},
      {"MYSQL_REPLICATION_USER", true},
      {"MYSQL_REPLICATION_PASSWORD", true},
      {"MYSQL_ROOT_PASSWORD", false},
      {"MYSQL_MONITOR_USER", false},
      {"MYSQL_MONITOR_PASSWORD", false},
      {"someone-elses-key", false}};
  for (const auto& [key, copied] : rows) {
    BOOST_TEST(source["data"].contains(key), key);
    BOOST_TEST((*copy)["data"].contains(key) == copied, key);
    if (copied) BOOST_TEST((*copy)["data"][key] == source["data"][key], key);
  }
  BOOST_TEST((*copy)["data"].size() == 4u);
  // A source without the replication keys: only what it has.
  source["data"].erase("MYSQL_REPLICATION_USER");
  source["data"].erase("MYSQL_REPLICATION_PASSWORD");
  BOOST_TEST((*operator_secret_copy(g, source, "ops"))["data"].size() == 2u);
  // An existing copy that still holds the root password is rewritten without it.
  json old = *copy;
  old["data"]["MYSQL_ROOT_PASSWORD"] = source["data"]["MYSQL_ROOT_PASSWORD"];
  auto fix = copy_write(old, *copy);
  BOOST_REQUIRE(fix.has_value());
  BOOST_TEST(!(*fix)["data"].contains("MYSQL_ROOT_PASSWORD"));
}

BOOST_AUTO_TEST_CASE(names_never_collide_across_namespaces) {
  // A namespace holds no dot: "<ns>.<group>" splits one way only.
  BOOST_TEST(operator_secret_copy_name("a", "b-c") != operator_secret_copy_name("a-b", "c"));
  BOOST_TEST(operator_secret_copy_name("a", "b") != operator_secret_copy_name("a", "b-operator"));
}

BOOST_AUTO_TEST_CASE(a_users_own_secret_and_an_unset_namespace_are_not_copied) {
  auto g = group();
  json users = {{"metadata", {{"name", "orders-operator"}, {"namespace", "shop"}}},
                {"data", {{"password", "cHc="}}}};
  BOOST_TEST(!operator_secret_copy(g, users, "bloodraven-system").has_value());
  users["metadata"]["ownerReferences"] = json::array({{{"uid", "another-group"}}});
  BOOST_TEST(!operator_secret_copy(g, users, "bloodraven-system").has_value());
  auto mine = generated_operator_secret(g, [](size_t n) { return std::string(n, 'x'); });
  BOOST_TEST(!operator_secret_copy(g, mine, "").has_value());
  BOOST_TEST(operator_secret_copy(g, mine, "ops").has_value());
}

BOOST_AUTO_TEST_CASE(copy_write_creates_updates_and_leaves_an_equal_copy_alone) {
  auto g = group();
  auto source = generated_operator_secret(g, [](size_t n) { return std::string(n, 'x'); });
  auto want = *operator_secret_copy(g, source, "ops");
  auto create = copy_write(nullptr, want);
  BOOST_REQUIRE(create.has_value());
  BOOST_TEST(*create == want);
  json have = want;
  have["metadata"]["resourceVersion"] = "12";
  have["metadata"]["labels"]["someone/else"] = "x";
  BOOST_TEST(!copy_write(have, want).has_value());  // equal: no write
  json stale = have;
  stale["data"]["password"] = "b2xk";
  auto update = copy_write(stale, want);
  BOOST_REQUIRE(update.has_value());
  BOOST_TEST((*update)["data"] == want["data"]);
  BOOST_TEST((*update)["metadata"]["resourceVersion"] == "12");  // conditional update
  BOOST_TEST((*update)["metadata"]["labels"]["someone/else"] == "x");
  json relabelled = have;
  relabelled["metadata"]["labels"]["shipstream.io/failover-group"] = "other";
  auto fixed = copy_write(relabelled, want);
  BOOST_REQUIRE(fixed.has_value());
  BOOST_TEST((*fixed)["metadata"]["labels"]["shipstream.io/failover-group"] == "orders");
}

BOOST_AUTO_TEST_SUITE_END()
