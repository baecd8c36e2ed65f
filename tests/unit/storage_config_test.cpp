// Storage settings from <P>_* variables: types, defaults, errors naming the variable, credentials
// read from files and never shown.
#include <boost/test/unit_test.hpp>

#include <map>

#include "io/storage/storage_config.hpp"

using namespace br::storage;

namespace {

struct world {
  std::map<std::string, std::string> env;
  std::map<std::string, std::string> files;

  storage_config_result parse(const std::string& prefix = "BLOODRAVEN_BACKUP") const {
    return parse_storage_config(
        prefix,
        [&](const std::string& n) -> std::optional<std::string> {
          auto it = env.find(n);
          if (it == env.end()) return std::nullopt;
          return it->second;
        },
        [&](const std::string& p) -> std::optional<std::string> {
          auto it = files.find(p);
          if (it == files.end()) return std::nullopt;
          return it->second;
        });
  }
};

world s3_world() {
  world w;
  w.env = {{"BLOODRAVEN_BACKUP_STORAGE_TYPE", "S3"},
           {"BLOODRAVEN_BACKUP_S3_BUCKET", "backups"},
           {"BLOODRAVEN_BACKUP_S3_CREDENTIALS_DIR", "/creds"}};
  w.files = {{"/creds/AWS_ACCESS_KEY_ID", "AKIDEXAMPLE\n"},
             {"/creds/AWS_SECRET_ACCESS_KEY", "s3cr3t-value\n"}};
  return w;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(storage_config_suite)

BOOST_AUTO_TEST_CASE(pvc_needs_an_absolute_mount_path) {
  world w;
  w.env = {{"BLOODRAVEN_PITR_STORAGE_TYPE", "PVC"}, {"BLOODRAVEN_PITR_PVC_MOUNT_PATH", "/backups/"}};
  auto r = w.parse("BLOODRAVEN_PITR");
  BOOST_REQUIRE_MESSAGE(r.config, r.error);
  BOOST_TEST((r.config->type == storage_type::pvc));
  BOOST_TEST(r.config->pvc_mount_path == "/backups");
  BOOST_TEST(r.config->describe() == "/backups/");
  BOOST_TEST(make_store(*r.config)->location() == "/backups/");

  w.env["BLOODRAVEN_PITR_PVC_MOUNT_PATH"] = "relative/dir";
  r = w.parse("BLOODRAVEN_PITR");
  BOOST_TEST(!r.config);
  BOOST_TEST(r.error.find("BLOODRAVEN_PITR_PVC_MOUNT_PATH") == 0u, r.error);
  w.env.erase("BLOODRAVEN_PITR_PVC_MOUNT_PATH");
  BOOST_TEST(w.parse("BLOODRAVEN_PITR").error.find("BLOODRAVEN_PITR_PVC_MOUNT_PATH") == 0u);
}

BOOST_AUTO_TEST_CASE(storage_type_is_required_and_checked) {
  world w;
  auto r = w.parse();
  BOOST_TEST(!r.config);
  BOOST_TEST(r.error.find("BLOODRAVEN_BACKUP_STORAGE_TYPE") == 0u, r.error);
  w.env["BLOODRAVEN_BACKUP_STORAGE_TYPE"] = "GCS";
  r = w.parse();
  BOOST_TEST(r.error.find("BLOODRAVEN_BACKUP_STORAGE_TYPE") == 0u, r.error);
  BOOST_TEST(r.error.find("GCS") != std::string::npos, r.error);
}

BOOST_AUTO_TEST_CASE(s3_defaults_and_credentials_from_files) {
  auto r = s3_world().parse();
  BOOST_REQUIRE_MESSAGE(r.config, r.error);
  const auto& c = *r.config;
  BOOST_TEST((c.type == storage_type::s3));
  BOOST_TEST(c.s3_bucket == "backups");
  BOOST_TEST(c.s3_prefix == "");
  BOOST_TEST(c.s3_region == "us-east-1");
  BOOST_TEST(c.s3_endpoint == "");
  BOOST_TEST(!c.s3_force_path_style);
  BOOST_TEST(c.credentials.access_key_id == "AKIDEXAMPLE");
  BOOST_TEST(c.credentials.secret_access_key == "s3cr3t-value");
  BOOST_TEST(c.credentials.session_token == "");
  BOOST_TEST(c.describe() == "s3://backups/");
  BOOST_TEST(c.describe().find("s3cr3t") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(s3_all_settings) {
  auto w = s3_world();
  w.env["BLOODRAVEN_BACKUP_S3_PREFIX"] = "/prod/group-a/";
  w.env["BLOODRAVEN_BACKUP_S3_REGION"] = "eu-west-3";
  w.env["BLOODRAVEN_BACKUP_S3_ENDPOINT"] = "http://127.0.0.1:9000/";
  w.env["BLOODRAVEN_BACKUP_S3_FORCE_PATH_STYLE"] = "true";
  w.files["/creds/AWS_SESSION_TOKEN"] = "tok\n";
  auto r = w.parse();
  BOOST_REQUIRE_MESSAGE(r.config, r.error);
  BOOST_TEST(r.config->s3_prefix == "prod/group-a/");
  BOOST_TEST(r.config->s3_region == "eu-west-3");
  BOOST_TEST(r.config->s3_endpoint == "http://127.0.0.1:9000");
  BOOST_TEST(r.config->s3_force_path_style);
  BOOST_TEST(r.config->credentials.session_token == "tok");
  BOOST_TEST(r.config->describe() == "s3://backups/prod/group-a/");
}

// Each bad setting: the error starts with the variable's name and never shows the secret.
BOOST_AUTO_TEST_CASE(s3_errors_name_the_variable) {
  struct row {
    const char* var;  // the variable the error must name
    std::function<void(world&)> spoil;
  };
  std::vector<row> rows = {
      {"BLOODRAVEN_BACKUP_S3_BUCKET", [](world& w) { w.env.erase("BLOODRAVEN_BACKUP_S3_BUCKET"); }},
      {"BLOODRAVEN_BACKUP_S3_BUCKET", [](world& w) { w.env["BLOODRAVEN_BACKUP_S3_BUCKET"] = "Bad_Bucket"; }},
      {"BLOODRAVEN_BACKUP_S3_PREFIX", [](world& w) { w.env["BLOODRAVEN_BACKUP_S3_PREFIX"] = "a/../b"; }},
      {"BLOODRAVEN_BACKUP_S3_REGION", [](world& w) { w.env["BLOODRAVEN_BACKUP_S3_REGION"] = "eu west"; }},
      {"BLOODRAVEN_BACKUP_S3_ENDPOINT", [](world& w) { w.env["BLOODRAVEN_BACKUP_S3_ENDPOINT"] = "minio:9000"; }},
      {"BLOODRAVEN_BACKUP_S3_ENDPOINT",
       [](world& w) { w.env["BLOODRAVEN_BACKUP_S3_ENDPOINT"] = "http://user:pw@minio:9000"; }},
      {"BLOODRAVEN_BACKUP_S3_FORCE_PATH_STYLE",
       [](world& w) { w.env["BLOODRAVEN_BACKUP_S3_FORCE_PATH_STYLE"] = "yes"; }},
      {"BLOODRAVEN_BACKUP_S3_CREDENTIALS_DIR",
       [](world& w) { w.env.erase("BLOODRAVEN_BACKUP_S3_CREDENTIALS_DIR"); }},
      {"BLOODRAVEN_BACKUP_S3_CREDENTIALS_DIR", [](world& w) { w.files.erase("/creds/AWS_ACCESS_KEY_ID"); }},
      {"BLOODRAVEN_BACKUP_S3_CREDENTIALS_DIR", [](world& w) { w.files.erase("/creds/AWS_SECRET_ACCESS_KEY"); }},
      {"BLOODRAVEN_BACKUP_S3_CREDENTIALS_DIR", [](world& w) { w.files["/creds/AWS_ACCESS_KEY_ID"] = "\n"; }},
      {"BLOODRAVEN_BACKUP_S3_CREDENTIALS_DIR",
       [](world& w) { w.files["/creds/AWS_SECRET_ACCESS_KEY"] = "s3cr3t value\n"; }},
  };
  for (size_t i = 0; i < rows.size(); ++i) {
    BOOST_TEST_CONTEXT("row " << i) {
      auto w = s3_world();
      rows[i].spoil(w);
      auto r = w.parse();
      BOOST_TEST(!r.config);
      BOOST_TEST(r.error.find(rows[i].var) == 0u, r.error);
      BOOST_TEST(r.error.find("s3cr3t") == std::string::npos, r.error);
    }
  }
}

BOOST_AUTO_TEST_CASE(prefixes_are_independent) {
  auto w = s3_world();
  w.env["BLOODRAVEN_PITR_STORAGE_TYPE"] = "PVC";
  w.env["BLOODRAVEN_PITR_PVC_MOUNT_PATH"] = "/pitr";
  auto b = w.parse("BLOODRAVEN_BACKUP");
  auto p = w.parse("BLOODRAVEN_PITR");
  BOOST_REQUIRE(b.config);
  BOOST_REQUIRE(p.config);
  BOOST_TEST((b.config->type == storage_type::s3));
  BOOST_TEST((p.config->type == storage_type::pvc));
}

BOOST_AUTO_TEST_SUITE_END()
