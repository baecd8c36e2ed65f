// integration_backup's storage: the environment of the bloodraven processes and the archiving
// of the source's sealed binlogs with the sidecar archiver's scan. PVC: stores under a temporary
// directory, the scan writes the archive in place. S3 (built with BR_BACKUP_S3, target
// integration_backup_s3): the real S3 server of tests/support/s3_server.* (authentication on),
// buckets "backups" and "pitr"; the scan fills a staging directory whose objects are then
// uploaded with the same layout (binlogs/<site>/<file>, binlogs/manifest-<site>.json).
// MySQL root credentials as files; the sandbox chroot for the MySQL tools.
#pragma once

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include "actors/sidecar/archive/binlog_scan.hpp"
#ifdef BR_BACKUP_S3
#include "io/storage/storage_config.hpp"
#include "tests/support/s3_server.hpp"
#endif

namespace br::test {

class backup_storage {
 public:
  /// Keys BLOODRAVEN_* go to the child; CREDS_DIR and ARCHIVE_STAGE are for the test.
  backup_storage(const std::string& base, int instance_id) {
    namespace fs = std::filesystem;
    const char* src = std::getenv("BR_SOURCE_DIR");
    env_["BLOODRAVEN_TOOLS_CHROOT"] = std::string(src != nullptr ? src : ".") + "/.sandbox/root";
    env_["CREDS_DIR"] = base + "/creds";
    fs::create_directories(env_["CREDS_DIR"]);
    std::ofstream(env_["CREDS_DIR"] + "/username") << "root";
    std::ofstream(env_["CREDS_DIR"] + "/password") << "rootpw";
    fs::permissions(env_["CREDS_DIR"] + "/password", fs::perms::owner_read | fs::perms::owner_write);
    env_["ARCHIVE_STAGE"] = base + "/archive";
    fs::create_directories(base + "/archive");
#ifdef BR_BACKUP_S3
    s3_ = std::make_unique<s3_server>(instance_id);
    s3_->create_bucket("backups");
    s3_->create_bucket("pitr");
    const std::string creds = base + "/s3creds";
    s3_->write_credentials(creds);
    for (const char* p : {"BLOODRAVEN_BACKUP", "BLOODRAVEN_PITR"}) {
      const std::string P = p;
      env_[P + "_STORAGE_TYPE"] = "S3";
      env_[P + "_S3_BUCKET"] = P == "BLOODRAVEN_BACKUP" ? "backups" : "pitr";
      env_[P + "_S3_PREFIX"] = P == "BLOODRAVEN_BACKUP" ? "group-a/" : "";
      env_[P + "_S3_ENDPOINT"] = s3_->endpoint();
      env_[P + "_S3_FORCE_PATH_STYLE"] = "true";
      env_[P + "_S3_CREDENTIALS_DIR"] = creds;
    }
    archive_store_ = storage::make_store(s3_->config("pitr", "", creds));
#else
    (void)instance_id;
    env_["BLOODRAVEN_BACKUP_STORAGE_TYPE"] = "PVC";
    env_["BLOODRAVEN_BACKUP_PVC_MOUNT_PATH"] = base + "/backups";
    env_["BLOODRAVEN_PITR_STORAGE_TYPE"] = "PVC";
    env_["BLOODRAVEN_PITR_PVC_MOUNT_PATH"] = base + "/archive";
    fs::create_directories(base + "/backups");
#endif
  }

  std::map<std::string, std::string>& env() { return env_; }

  /// One archiver scan of the source (it is the primary) into ARCHIVE_STAGE; with S3 the staged
  /// archive is then uploaded. "" or what failed.
  std::string archive(const sidecar::scan_options& o, sidecar::scan_report& report) {
    report = sidecar::archive_scan(
        o, [] { return std::optional<bool>(true); },
        [] {
          return static_cast<int64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count());
        });
    if (!report.error.empty()) return report.error;
#ifdef BR_BACKUP_S3
    namespace fs = std::filesystem;
    const fs::path stage = env_["ARCHIVE_STAGE"];
    for (const auto& e : fs::recursive_directory_iterator(stage)) {
      if (!e.is_regular_file()) continue;
      auto key = fs::relative(e.path(), stage).string();
      if (auto st = archive_store_->put_file(key, e.path()); !st) return "upload of " + key + ": " + st.error().message;
    }
#endif
    return "";
  }

 private:
  std::map<std::string, std::string> env_;
#ifdef BR_BACKUP_S3
  std::unique_ptr<s3_server> s3_;
  std::unique_ptr<storage::object_store> archive_store_;
#endif
};

}  // namespace br::test
