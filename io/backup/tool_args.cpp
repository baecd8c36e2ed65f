// The client tools' command lines (see tool_args.hpp).
#include "io/backup/tool_args.hpp"

namespace br::backup {
namespace {

std::vector<std::string> connect_args(const mysql_target& t, const std::string& option_file,
                                      const std::string& tool_ca) {
  std::vector<std::string> a = {"--defaults-file=" + option_file, "--host=" + t.host,
                                "--port=" + std::to_string(t.port), "--protocol=TCP"};
  for (auto& x : client_tls_args(tool_ca)) a.push_back(std::move(x));
  return a;
}

}  // namespace

std::vector<std::string> dump_args(const mysql_target& source, const std::string& option_file,
                                   const std::string& tool_ca, const std::vector<std::string>& schemas) {
  auto a = connect_args(source, option_file, tool_ca);
  a.insert(a.end(), {"--single-transaction", "--source-data=2", "--set-gtid-purged=ON", "--routines", "--events",
                     "--triggers", "--hex-blob", "--default-character-set=utf8mb4", "--max-allowed-packet=1G",
                     "--databases"});
  a.insert(a.end(), schemas.begin(), schemas.end());
  return a;
}

std::vector<std::string> load_args(const mysql_target& target, const std::string& option_file,
                                   const std::string& tool_ca) {
  auto a = connect_args(target, option_file, tool_ca);
  a.insert(a.end(), {"--binary-mode", "--batch", "--default-character-set=utf8mb4", "--max-allowed-packet=1G",
                     "--connect-timeout=30"});
  return a;
}

}  // namespace br::backup
