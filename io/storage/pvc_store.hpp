// object_store on a directory (a mounted volume): key "a/b/c" is the file <root>/a/b/c.
// Writes go to a temporary name beside the target ("<name>.br-tmp-<pid>-<n>"), are fsynced and
// renamed over it, then the directory is fsynced; list() never shows temporary files.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "io/storage/object_store.hpp"

namespace br::storage {

class pvc_store final : public object_store {
 public:
  /// `root`: an absolute directory (created on the first write when missing).
  /// `deadline`: a bound on one copy (checked between 1 MiB blocks).
  explicit pvc_store(std::string root, std::chrono::milliseconds deadline = std::chrono::minutes(30));

  std::string location() const override;
  store_status put_file(const std::string& key, const std::filesystem::path& src) override;
  store_status put_bytes(const std::string& key, std::string_view data) override;
  store_status get_file(const std::string& key, const std::filesystem::path& dst) override;
  store_result<std::string> get_bytes(const std::string& key, uint64_t max_bytes) override;
  store_result<std::vector<object_info>> list(const std::string& prefix) override;
  store_status remove(const std::string& key) override;

  /// The file that holds `key` (no check).
  std::filesystem::path path_of(const std::string& key) const { return root_ / key; }

 private:
  /// Refuses invalid keys and paths that resolve (through symlinks) outside the root.
  std::optional<store_error> check_key(const std::string& key) const;

  std::filesystem::path root_;
  std::chrono::milliseconds deadline_;
};

/// True for the temporary names pvc_store writes before renaming.
bool is_temp_name(const std::string& file_name);

}  // namespace br::storage
