// object_store on S3 (AWS or an S3-compatible server: MinIO, Ceph, rclone) over libcurl, signed
// with libcurl's own SigV4 (CURLOPT_AWS_SIGV4). Every request has connect and total timeouts,
// response bodies are capped, and transport errors, 429 and 5xx are retried with exponential
// backoff and jitter (bounded attempts). Uploads above the multipart threshold go multipart
// (aborted on failure); every upload carries Content-MD5 so the server checks the bytes.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "io/storage/object_store.hpp"
#include "io/storage/storage_config.hpp"

namespace br::storage {

class s3_store final : public object_store {
 public:
  explicit s3_store(storage_config cfg);
  ~s3_store() override;

  std::string location() const override;
  store_status put_file(const std::string& key, const std::filesystem::path& src) override;
  store_status put_bytes(const std::string& key, std::string_view data) override;
  store_status get_file(const std::string& key, const std::filesystem::path& dst) override;
  store_result<std::string> get_bytes(const std::string& key, uint64_t max_bytes) override;
  store_result<std::vector<object_info>> list(const std::string& prefix) override;
  store_status remove(const std::string& key) override;

  struct impl;

 private:
  std::unique_ptr<impl> impl_;
};

}  // namespace br::storage
