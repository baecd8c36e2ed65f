// The init container's script (reconciler version 6, config/render/accounts.cpp) run by bash
// against a temporary data directory, with `mysqld` replaced by a stand-in on PATH that records
// its arguments and the --init-file's SQL, and creates <datadir>/mysql (or fails) as told. The
// real mysqld runs it in the process-kubelet e2e (integration_kube_kubelet*).
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/render/accounts.hpp"
#include "tests/support/temp_dir.hpp"

namespace fs = std::filesystem;
using br::render::init_datadir_script;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  auto at = s.find(from);
  BOOST_TEST_REQUIRE(at != std::string::npos, from);
  return s.replace(at, from.size(), to);
}

struct script_run {
  br::test::temp_dir dir{"br-init-datadir"};
  fs::path data = dir.path / "data";
  int exit_code = -1;
  std::string out;

  script_run() {
    fs::create_directories(data);
    fs::create_directories(dir.path / "bin");
    // The stand-in: records its argv and the init file; BR_FAKE_MYSQLD=fail exits 1 after
    // leaving a file behind (an initialisation that failed half-way).
    std::ofstream(dir.path / "bin/mysqld") << "#!/bin/bash\n"
                                              "echo \"$*\" >> \"$BR_FAKE_DIR/mysqld.args\"\n"
                                              "for a in \"$@\"; do case $a in --init-file=*) "
                                              "cp \"${a#--init-file=}\" \"$BR_FAKE_DIR/init.sql\";; "
                                              "esac; done\n"
                                              "touch \"$BR_FAKE_DATA/ibdata1\"\n"
                                              "sleep \"${BR_FAKE_SLEEP:-0}\"\n"
                                              "[ \"${BR_FAKE_MYSQLD:-}\" = fail ] && exit 1\n"
                                              "mkdir \"$BR_FAKE_DATA/mysql\"\n";
    fs::permissions(dir.path / "bin/mysqld", fs::perms::owner_all);
    std::string s = init_datadir_script();
    s = replaced(s, "DATADIR=/var/lib/mysql\n", "DATADIR=" + data.string() + "\n");
    s = replaced(s, "CNF=/etc/mysql/conf.d/my.cnf\n", "CNF=" + (dir.path / "my.cnf").string() + "\n");
    std::ofstream(dir.path / "init.sh") << s;
  }

  std::string command(const std::string& env, const std::string& out_file) const {
    return "env -i PATH=" + (dir.path / "bin").string() + ":/usr/bin:/bin BR_FAKE_DIR=" +
           dir.path.string() + " BR_FAKE_DATA=" + data.string() + " " + env + " bash " +
           (dir.path / "init.sh").string() + " > " + (dir.path / out_file).string() + " 2>&1";
  }
  void run(const std::string& env) {
    int rc = std::system(command(env, "out").c_str());
    exit_code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    out = slurp(dir.path / "out");
  }
  bool mysqld_ran() const { return fs::exists(dir.path / "mysqld.args"); }
  bool marker() const { return fs::exists(data / br::render::init_datadir_marker); }
};

const std::string pw = "MYSQL_ROOT_PASSWORD=\"r'oot\"";

}  // namespace

BOOST_AUTO_TEST_SUITE(render_init_datadir)

BOOST_AUTO_TEST_CASE(an_empty_directory_is_initialised_with_root_and_the_accounts) {
  script_run r;
  fs::create_directories(r.data / "lost+found");
  r.run(pw + " BLOODRAVEN_OPERATOR_USER=op BLOODRAVEN_OPERATOR_PASSWORD=x MYSQL_REPLICATION_USER=repl"
              " MYSQL_REPLICATION_PASSWORD=y");
  BOOST_TEST_REQUIRE(r.exit_code == 0, r.out);
  auto args = slurp(r.dir.path / "mysqld.args");
  BOOST_TEST(args.starts_with("--defaults-extra-file=" + (r.dir.path / "my.cnf").string() +
                              " --initialize-insecure --init-file="), args);
  auto sql = slurp(r.dir.path / "init.sql");
  BOOST_TEST(sql.starts_with("SET sql_log_bin=0;\n"), sql);
  for (const char* want : {"ALTER USER 'root'@'localhost' IDENTIFIED BY 'r''oot';",
                           "CREATE USER IF NOT EXISTS 'root'@'%' IDENTIFIED BY 'r''oot';",
                           "GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION;",
                           "CREATE USER IF NOT EXISTS 'op'@'%' IDENTIFIED BY 'x';",
                           "CREATE USER IF NOT EXISTS 'repl'@'%' IDENTIFIED BY 'y';"})
    BOOST_TEST(sql.find(want) != std::string::npos, want << "\nin:\n" << sql);
  BOOST_TEST(!r.marker());
  BOOST_TEST(fs::exists(r.data / "lost+found"));
}

BOOST_AUTO_TEST_CASE(an_initialised_directory_is_left_alone) {
  script_run r;
  fs::create_directories(r.data / "mysql");
  std::ofstream(r.data / "ibdata1") << "data";
  r.run(pw);
  BOOST_TEST(r.exit_code == 0, r.out);
  BOOST_TEST(!r.mysqld_ran());
  BOOST_TEST(slurp(r.data / "ibdata1") == "data");
}

BOOST_AUTO_TEST_CASE(foreign_files_are_kept_and_refused) {
  script_run r;
  std::ofstream(r.data / "precious.ibd") << "theirs";
  r.run(pw);
  BOOST_TEST(r.exit_code == 1, r.out);
  BOOST_TEST(r.out.find("not initialised by us; nothing removed): precious.ibd") != std::string::npos, r.out);
  BOOST_TEST(!r.mysqld_ran());
  BOOST_TEST(slurp(r.data / "precious.ibd") == "theirs");
}

BOOST_AUTO_TEST_CASE(a_failed_initialisation_is_started_over) {
  script_run r;
  r.run(pw + " BR_FAKE_MYSQLD=fail");
  BOOST_TEST(r.exit_code != 0, r.out);
  BOOST_TEST(r.marker());  // ours, half done
  BOOST_TEST(fs::exists(r.data / "ibdata1"));
  fs::remove(r.dir.path / "mysqld.args");
  r.run(pw);
  BOOST_TEST_REQUIRE(r.exit_code == 0, r.out);
  BOOST_TEST(r.out.find("removing what a failed earlier initialisation left: ibdata1") != std::string::npos, r.out);
  BOOST_TEST(r.mysqld_ran());
  BOOST_TEST(!r.marker());
  BOOST_TEST(fs::exists(r.data / "mysql"));
}

// Interrupted after mysqld created mysql/ but before the init file ran: root would have an
// empty password and the accounts would be missing; the marker says it never completed.
BOOST_AUTO_TEST_CASE(an_interrupted_initialisation_with_a_schema_directory_is_started_over) {
  script_run r;
  std::ofstream(r.data / br::render::init_datadir_marker) << "";
  std::filesystem::create_directories(r.data / "mysql");
  std::ofstream(r.data / "ibdata1") << "half";
  r.run(pw);
  BOOST_TEST_REQUIRE(r.exit_code == 0, r.out);
  BOOST_TEST(r.out.find("removing what a failed earlier initialisation left") != std::string::npos, r.out);
  BOOST_TEST(r.mysqld_ran());
  BOOST_TEST(!r.marker());
  BOOST_TEST(slurp(r.data / "ibdata1") != "half");  // removed, then made anew by (stand-in) mysqld
}

// Two pods on one volume at once: the second waits for the first's lock, then finds a server
// (without the lock it took the first's marker for a failed run and removed its files).
BOOST_AUTO_TEST_CASE(two_initialisations_of_one_directory_run_one_after_the_other) {
  script_run r;
  const std::string env = pw + " BR_FAKE_SLEEP=2";
  const std::string both = "(" + r.command(env, "out1") + "; echo $? > " + (r.dir.path / "rc1").string() +
                           ") & sleep 0.5; (" + r.command(env, "out2") + "; echo $? > " +
                           (r.dir.path / "rc2").string() + ") & wait";
  std::ofstream(r.dir.path / "both.sh") << both << "\n";
  BOOST_TEST_REQUIRE(std::system(("bash " + (r.dir.path / "both.sh").string()).c_str()) == 0);
  const auto out1 = slurp(r.dir.path / "out1"), out2 = slurp(r.dir.path / "out2");
  BOOST_TEST(slurp(r.dir.path / "rc1") == "0\n", out1);
  BOOST_TEST(slurp(r.dir.path / "rc2") == "0\n", out2);
  auto args = slurp(r.dir.path / "mysqld.args");
  BOOST_TEST(std::count(args.begin(), args.end(), '\n') == 1, "mysqld ran more than once:\n" << args);
  BOOST_TEST(out2.find("holds a server: nothing to do") != std::string::npos, out2);
  BOOST_TEST(!r.marker());
}

BOOST_AUTO_TEST_CASE(no_root_password_no_initialisation) {
  script_run r;
  r.run("");
  BOOST_TEST(r.exit_code == 1, r.out);
  BOOST_TEST(r.out.find("MYSQL_ROOT_PASSWORD is not set") != std::string::npos, r.out);
  BOOST_TEST(!r.mysqld_ran());
  BOOST_TEST(!r.marker());
}

// Review finding 10: a value that cannot go into the init file stops the script before it
// touches the data directory (no marker, no mysqld), naming the variable and the Secret key.
BOOST_AUTO_TEST_CASE(values_that_cannot_go_into_the_init_file_are_refused_first) {
  struct row {
    std::string env;
    std::string says;
  };
  const std::vector<row> rows{
      {"BLOODRAVEN_OPERATOR_USER=op BLOODRAVEN_OPERATOR_PASSWORD=\"$(printf 'a\\nb')\"",
       "BLOODRAVEN_OPERATOR_PASSWORD (credentials Secret key password) holds a control character"},
      {"BLOODRAVEN_OPERATOR_USER=\"$(printf 'o\\tp')\" BLOODRAVEN_OPERATOR_PASSWORD=x",
       "BLOODRAVEN_OPERATOR_USER (credentials Secret key username) holds a control character"},
      {"MYSQL_REPLICATION_USER=\"re'pl\" MYSQL_REPLICATION_PASSWORD=x",
       "MYSQL_REPLICATION_USER (credentials Secret key MYSQL_REPLICATION_USER) is not a user name"},
      {"MYSQL_MONITOR_USER=monitor",
       "MYSQL_MONITOR_USER is set but MYSQL_MONITOR_PASSWORD is empty"},
      {"MYSQL_BACKUP_USER=backup",
       "MYSQL_BACKUP_USER is set but MYSQL_BACKUP_PASSWORD is empty"},
      {"BLOODRAVEN_OPERATOR_USER=" + std::string(33, 'u') + " BLOODRAVEN_OPERATOR_PASSWORD=x",
       "is longer than 32 characters"},
  };
  for (const auto& rw : rows) {
    script_run r;
    r.run(pw + " " + rw.env);
    BOOST_TEST(r.exit_code == 1, rw.env << "\n" << r.out);
    BOOST_TEST(r.out.find(rw.says) != std::string::npos, rw.env << "\n" << r.out);
    BOOST_TEST(!r.mysqld_ran(), rw.env);
    BOOST_TEST(!r.marker(), rw.env);
  }
  // The root password too, and quotes and backslashes in a password are quoted, not refused.
  script_run bad_root;
  bad_root.run("MYSQL_ROOT_PASSWORD=\"$(printf 'r\\nx')\"");
  BOOST_TEST(bad_root.exit_code == 1, bad_root.out);
  BOOST_TEST(bad_root.out.find("MYSQL_ROOT_PASSWORD (credentials Secret key MYSQL_ROOT_PASSWORD)") !=
             std::string::npos, bad_root.out);
  script_run quoted;
  quoted.run(pw + " BLOODRAVEN_OPERATOR_USER=op BLOODRAVEN_OPERATOR_PASSWORD=\"a'b\\\\c\"");
  BOOST_TEST_REQUIRE(quoted.exit_code == 0, quoted.out);
  auto sql = slurp(quoted.dir.path / "init.sql");
  BOOST_TEST(sql.find("IDENTIFIED BY 'a''b\\\\c';") != std::string::npos, sql);
}

BOOST_AUTO_TEST_SUITE_END()
