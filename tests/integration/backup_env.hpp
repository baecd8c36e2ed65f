// integration_backup's storage: the environment of the bloodraven processes (PVC stores under a
// temporary directory; MySQL root credentials as files; the sandbox chroot for the MySQL tools)
// and the archiving of the source's sealed binlogs with the sidecar archiver's scan.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "actors/sidecar/archive/binlog_scan.hpp"

namespace br::test {

/// Keys BLOODRAVEN_* go to the child; CREDS_DIR and ARCHIVE_STAGE are for the test.
inline std::map<std::string, std::string> backup_env(const std::string& base) {
  namespace fs = std::filesystem;
  std::map<std::string, std::string> env;
  const char* src = std::getenv("BR_SOURCE_DIR");
  env["BLOODRAVEN_TOOLS_CHROOT"] = std::string(src != nullptr ? src : ".") + "/.sandbox/root";
  env["CREDS_DIR"] = base + "/creds";
  fs::create_directories(env["CREDS_DIR"]);
  std::ofstream(env["CREDS_DIR"] + "/username") << "root";
  std::ofstream(env["CREDS_DIR"] + "/password") << "rootpw";
  fs::permissions(env["CREDS_DIR"] + "/password", fs::perms::owner_read | fs::perms::owner_write);
  env["BLOODRAVEN_BACKUP_STORAGE_TYPE"] = "PVC";
  env["BLOODRAVEN_BACKUP_PVC_MOUNT_PATH"] = base + "/backups";
  env["BLOODRAVEN_PITR_STORAGE_TYPE"] = "PVC";
  env["BLOODRAVEN_PITR_PVC_MOUNT_PATH"] = base + "/archive";
  env["ARCHIVE_STAGE"] = base + "/archive";
  fs::create_directories(base + "/backups");
  fs::create_directories(base + "/archive");
  return env;
}

/// One archiver scan of the source (it is the primary).
inline sidecar::scan_report archive(const sidecar::scan_options& o, std::map<std::string, std::string>&) {
  return sidecar::archive_scan(
      o, [] { return std::optional<bool>(true); },
      [] {
        return static_cast<int64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
      });
}

}  // namespace br::test
