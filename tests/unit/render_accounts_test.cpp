// account_values_problem (config/render/accounts.hpp): which credentials Secret values are
// refused before they reach the MySQL init file (review finding 10), one row per rule.
#include <boost/test/unit_test.hpp>

#include "config/render/accounts.hpp"

using br::render::account_values_problem;

namespace {

struct row {
  const char* what;
  std::map<std::string, std::string> data;
  std::string says;  ///< "" = accepted; else a part of the message
};

const std::map<std::string, std::string> good{{"username", "bloodraven"},
                                              {"password", "p'w\\\"x`$(y)"},
                                              {"MYSQL_ROOT_PASSWORD", "r00t"},
                                              {"MYSQL_REPLICATION_USER", "repl"},
                                              {"MYSQL_REPLICATION_PASSWORD", "r"},
                                              {"MYSQL_MONITOR_USER", "mon.1$-x"},
                                              {"MYSQL_MONITOR_PASSWORD", "m"},
                                              {"MYSQL_BACKUP_USER", "backup"},
                                              {"MYSQL_BACKUP_PASSWORD", "b"},
                                              {"dsn", "anything\ngoes: not read by the init"}};

std::map<std::string, std::string> with(const std::string& key, const std::string& value) {
  auto d = good;
  d[key] = value;
  return d;
}

std::map<std::string, std::string> without(const std::string& key) {
  auto d = good;
  d.erase(key);
  return d;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(render_accounts)

BOOST_AUTO_TEST_CASE(control_characters_bad_user_names_and_passwordless_accounts_are_refused) {
  const std::vector<row> rows{
      {"all good (quotes, backslash, $ and backticks are quoted, not refused)", good, ""},
      {"only username/password", {{"username", "op"}, {"password", "x"}}, ""},
      {"newline in password", with("password", "a\nb"),
       "Secret \"s\" key \"password\" holds a control character (0x0a at byte 1)"},
      {"NUL in root password", with("MYSQL_ROOT_PASSWORD", std::string("ab\0c", 4)),
       "key \"MYSQL_ROOT_PASSWORD\" holds a control character (0x00 at byte 2)"},
      {"carriage return in replication password", with("MYSQL_REPLICATION_PASSWORD", "x\r"),
       "key \"MYSQL_REPLICATION_PASSWORD\" holds a control character (0x0d"},
      {"DEL in monitor password", with("MYSQL_MONITOR_PASSWORD", "\x7f"), "(0x7f at byte 0)"},
      {"tab in user", with("username", "op\t"), "key \"username\" holds a control character"},
      {"quote in user", with("username", "o'p"),
       "key \"username\" is not a MySQL user name of the form"},
      {"user starting with a dot", with("MYSQL_REPLICATION_USER", ".repl"),
       "key \"MYSQL_REPLICATION_USER\" is not a MySQL user name"},
      {"user of 33 characters", with("MYSQL_MONITOR_USER", std::string(33, 'm')),
       "key \"MYSQL_MONITOR_USER\" is not a MySQL user name"},
      {"user of 32 characters", with("MYSQL_MONITOR_USER", std::string(32, 'm')), ""},
      {"non-ASCII user", with("username", "op\xc3\xa9"), "is not a MySQL user name"},
      {"replication user without password", without("MYSQL_REPLICATION_PASSWORD"),
       "key \"MYSQL_REPLICATION_USER\" names an account but key \"MYSQL_REPLICATION_PASSWORD\" is "
       "missing or empty"},
      {"operator user with empty password", with("password", ""),
       "key \"username\" names an account but key \"password\""},
      {"backup user without password", without("MYSQL_BACKUP_PASSWORD"),
       "key \"MYSQL_BACKUP_USER\" names an account but key \"MYSQL_BACKUP_PASSWORD\" is missing"},
      {"newline in backup user", with("MYSQL_BACKUP_USER", "b\nx"),
       "key \"MYSQL_BACKUP_USER\" holds a control character"},
      {"empty optional user: no account, no password needed",
       {{"username", "op"}, {"password", "x"}, {"MYSQL_MONITOR_USER", ""}}, ""},
  };
  for (const auto& r : rows) {
    auto got = account_values_problem("s", r.data);
    if (r.says.empty())
      BOOST_TEST(got.empty(), r.what << ": " << got);
    else
      BOOST_TEST(got.find(r.says) != std::string::npos, r.what << ": " << got);
  }
}

BOOST_AUTO_TEST_CASE(the_message_never_quotes_the_value) {
  auto got = account_values_problem("s", with("password", "hunter2\n"));
  BOOST_TEST(!got.empty());
  BOOST_TEST(got.find("hunter2") == std::string::npos, got);
}

BOOST_AUTO_TEST_SUITE_END()
